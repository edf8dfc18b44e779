import Foundation
import KeychainCore
import LinuxKeychainKit
import Testing

/// A program moving its own items with the typed API: only its access group moves, every other
/// program's items and the shared ones stay, and each item's progress is reported.
@Suite("a program moves its own items")
struct OwnItemsMigrationTests {
    static func item(_ account: String, group: String?) -> KeychainItem {
        var attributes = ItemAttributes([.service: .string("own-items"), .account: .string(account)])
        if let group { attributes[.accessGroup] = .string(group) }
        return KeychainItem(itemClass: .genericPassword, attributes: attributes, secret: SecretBytes(Data(account.utf8)))
    }

    @Test func onlyTheProgramsGroupMovesWithProgressPerItem() throws {
        let source = MemoryBackend(), target = MemoryBackend()
        for item in [Self.item("mine-1", group: "com.example.mine"), Self.item("mine-2", group: "com.example.mine"),
                     Self.item("theirs", group: "com.example.theirs"), Self.item("shared", group: nil)] {
            try source.add(item)
        }
        var move = ItemMigration.ownItems(from: source, to: target, accessGroup: "com.example.mine")
        move.deleteSource = true
        var seen: [String] = []
        let report = try move.run { seen.append("\($0.position)/\($0.total) \($0.outcome.word)") }
        #expect(seen == ["1/2 copied", "2/2 copied"])
        #expect(report.isComplete && report.deletedFromSource == 2)
        let moved = try ItemMigration.items(in: target, scope: .everything).compactMap { $0.attributes.string(.account) }
        #expect(moved.sorted() == ["mine-1", "mine-2"])
        let left = try ItemMigration.items(in: source, scope: .everything).compactMap { $0.attributes.string(.account) }
        #expect(left.sorted() == ["shared", "theirs"])
    }

    @Test func theDefaultGroupIsTheProgramsOwn() throws {
        let move = ItemMigration.ownItems(from: MemoryBackend(), to: MemoryBackend())
        #expect(move.scope == .group(KeychainProgramIdentity.accessGroup))
    }

    @Test func anUnknownBackendNameIsAParameterError() throws {
        #expect(throws: KeychainError.self) { try ItemMigration.ownItems(from: "no-such-backend", to: "memory") }
        do {
            _ = try ItemMigration.ownItems(from: "no-such-backend", to: "memory")
        } catch let error as KeychainError {
            #expect(error.status == errSecParam)
        }
    }
}
