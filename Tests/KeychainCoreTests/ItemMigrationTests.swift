import Foundation
import KeychainCore
import Testing

/// `ItemMigration` between memory stores: the rules every move keeps, whatever the stores.
@Suite("moving items between stores")
struct ItemMigrationTests {
    static let created = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func item(_ service: String, _ account: String, group: String = "", secret: [UInt8],
                     extra: ItemAttributes = ItemAttributes()) -> KeychainItem {
        var attributes = ItemAttributes([.service: .string(service), .account: .string(account),
                                         .creationDate: .date(created), .modificationDate: .date(created.addingTimeInterval(5))])
        if !group.isEmpty { attributes[.accessGroup] = .string(group) }
        return KeychainItem(itemClass: .genericPassword, attributes: attributes.merging(extra), secret: SecretBytes(Data(secret)))
    }

    static func internetItem() -> KeychainItem {
        KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("höst.example"), .account: .string("ålice"), .protocol: .string("htps"), .port: .integer(8443),
            .path: .string("/v1"), .authenticationType: .string("dflt"), .securityDomain: .string("realm"),
            .label: .string("Label"), .comment: .string("Comment"), .synchronizable: .bool(true),
            .creationDate: .date(created), .modificationDate: .date(created),
        ]), secret: SecretBytes(Data()))
    }

    func filledSource() throws -> MemoryBackend {
        let source = MemoryBackend()
        try source.add(Self.item("svc", "bob", secret: [0, 255, 10]))
        try source.add(Self.item("svc", "bob", group: "app.one", secret: [1]))
        try source.add(Self.item("svc", "carol", group: "app.two", secret: [2], extra: ItemAttributes([.label: .string("L")])))
        try source.add(Self.internetItem())
        return source
    }

    func everything(in backend: any KeychainBackend) throws -> [KeychainItem] {
        try ItemMigration(from: backend, to: MemoryBackend()).sourceItems()
    }

    @Test func copiesEveryItemExactlyAndARerunFindsThemPresent() throws {
        let source = try filledSource(), target = MemoryBackend()
        var positions: [Int] = []
        let report = try ItemMigration(from: source, to: target).run { positions.append($0.position) }
        #expect(report.isComplete && report.count("copied") == 4)
        #expect(positions == [1, 2, 3, 4])
        let copies = try everything(in: target)
        #expect(copies.count == 4)
        for original in try everything(in: source) {
            let copy = try #require(copies.first { $0.primaryKey == original.primaryKey })
            #expect(ItemComparison.differences(between: original, and: copy, includingDates: true).isEmpty)
        }
        let again = try ItemMigration(from: source, to: target).run()
        #expect(again.count("already present") == 4 && again.isComplete)
        #expect(try everything(in: target).count == 4)
    }

    @Test func aDifferentTargetItemIsAConflictUnlessOverwritten() throws {
        let source = try filledSource(), target = MemoryBackend()
        try target.add(Self.item("svc", "bob", secret: [9, 9]))
        let report = try ItemMigration(from: source, to: target).run()
        #expect(report.conflicts.map(\.differences) == [["secret"]])
        #expect(!report.isComplete && report.count("copied") == 3)
        let kept = try target.search(ItemQuery(primaryKey: Self.item("svc", "bob", secret: []).primaryKey, includeSecrets: true))
        #expect(kept.first?.secret?.makeData() == Data([9, 9]))

        var overwriting = ItemMigration(from: source, to: target)
        overwriting.overwrite = true
        let second = try overwriting.run()
        #expect(second.count("overwritten") == 1 && second.count("already present") == 3 && second.isComplete)
        let replaced = try target.search(ItemQuery(primaryKey: Self.item("svc", "bob", secret: []).primaryKey, includeSecrets: true))
        #expect(replaced.first?.secret?.makeData() == Data([0, 255, 10]))
    }

    @Test func overwriteRemovesAttributesOnlyTheTargetHad() throws {
        let source = MemoryBackend(), target = MemoryBackend()
        try source.add(Self.item("svc", "dan", secret: [1]))
        try target.add(Self.item("svc", "dan", secret: [1], extra: ItemAttributes([.comment: .string("old")])))
        var move = ItemMigration(from: source, to: target)
        #expect(try move.run().conflicts.map(\.differences) == [["icmt"]])
        move.overwrite = true
        #expect(try move.run().count("overwritten") == 1)
        #expect(try everything(in: target).first?.attributes[.comment] == nil)
    }

    @Test func aDryRunWritesAndDeletesNothing() throws {
        let source = try filledSource(), target = MemoryBackend()
        var move = ItemMigration(from: source, to: target)
        move.dryRun = true
        move.deleteSource = true
        let report = try move.run()
        #expect(report.count("would copy") == 4)
        #expect(try everything(in: target).isEmpty && everything(in: source).count == 4)
    }

    @Test func theSourceIsDeletedOnlyAfterACompleteMove() throws {
        let source = try filledSource(), target = MemoryBackend()
        try target.add(Self.item("svc", "bob", secret: [7]))
        var move = ItemMigration(from: source, to: target)
        move.deleteSource = true
        let incomplete = try move.run()
        #expect(try incomplete.deletedFromSource == 0 && everything(in: source).count == 4)
        move.overwrite = true
        let complete = try move.run()
        #expect(try complete.deletedFromSource == 4 && everything(in: source).isEmpty)
        #expect(try everything(in: target).count == 4)
    }

    @Test func aProgramMovesOnlyItsOwnGroup() throws {
        let source = try filledSource(), target = MemoryBackend()
        var move = ItemMigration(from: source, to: target, scope: .group("app.one"))
        move.deleteSource = true
        let report = try move.run()
        #expect(report.entries.count == 1 && report.deletedFromSource == 1)
        #expect(try everything(in: target).map { $0.attributes.string(.accessGroup) } == ["app.one"])
        #expect(try everything(in: source).count == 3)
    }

    @Test func aTargetThatLosesAnAttributeFailsVerificationAndKeepsNoCopy() throws {
        let source = try filledSource(), target = CommentDroppingBackend()
        let report = try ItemMigration(from: source, to: target).run()
        let failure = try #require(report.failures.first)
        #expect(report.failures.count == 1 && failure.error.message.contains("icmt"))
        #expect(!failure.error.message.contains("Comment"))
        #expect(try everything(in: target).count == 3)
    }
}

/// A store that silently drops comments, as a lossy third-party backend might.
final class CommentDroppingBackend: KeychainBackend, Sendable {
    let stored = MemoryBackend()
    var name: String { "comment-dropping" }
    func availability() -> BackendAvailability { .available("test") }
    func add(_ item: KeychainItem) throws {
        var lossy = item
        lossy.attributes[.comment] = nil
        try stored.add(lossy)
    }
    func search(_ query: ItemQuery) throws -> [KeychainItem] { try stored.search(query) }
    func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int { try stored.update(query, with: changes) }
    func delete(_ query: ItemQuery) throws -> Int { try stored.delete(query) }
}
