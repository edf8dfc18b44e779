import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// Two names whose item key descriptions share a 64-bit FNV-1a hash, and so one entry slot
/// in the records (`ItemRecords.nameHash`). The hash is no defence against names chosen to
/// collide (these two were found by a birthday search over account names), so an add must
/// not take over an entry that is another live item's: that would hand the other item this
/// one's attributes, and a later delete of either would end both.
@Suite("kernel keyring names with one record hash")
struct NameHashCollisionTests {
    let kernel = KernelKeys()
    static let service = "fnv-collision"
    static let first = "u8c2969b027ccc772"
    static let second = "u8abf79474edbb534"

    @Test func theTwoNamesShareTheirHash() throws {
        let one = try ItemKeyDescription(genericItem(Self.service, Self.first, Data()).primaryKey)
        let other = try ItemKeyDescription(genericItem(Self.service, Self.second, Data()).primaryKey)
        #expect(one.text != other.text)
        #expect(ItemRecords.nameHash(one) == ItemRecords.nameHash(other))
    }

    func add(_ account: String, to backend: KernelKeyringBackend) throws {
        try backend.add(genericItem(Self.service, account, Data("secret of \(account)".utf8),
                                    extra: [.label: .string("label of \(account)")]))
    }

    /// The item `account` names reads back whole: its own secret and its own label.
    func expectIntact(_ account: String, in backend: KernelKeyringBackend,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try backend.search(primaryKeyQuery(Self.service, account, secrets: true))
        #expect(found.count == 1, sourceLocation: sourceLocation)
        #expect(found.first?.secret?.makeData() == Data("secret of \(account)".utf8), sourceLocation: sourceLocation)
        #expect(found.first?.attributes[.label] == .string("label of \(account)"), sourceLocation: sourceLocation)
    }

    func everyItem(in backend: KernelKeyringBackend) throws -> [KeychainItem] {
        try backend.search(ItemQuery(itemClass: .genericPassword,
                                     constraints: ItemAttributes([.service: .string(Self.service)]),
                                     limit: .all, includeSecrets: false))
    }

    @Test func anAddWhoseHashIsAnotherItemsIsRefusedAndThatItemStaysWhole() throws {
        let own = try kernel.ownKeyring("collision-add")
        defer { own.remove() }
        try add(Self.first, to: own.backend)
        let error = expectKeychainError(errSecParam) { try add(Self.second, to: own.backend) }
        #expect(error?.message.contains("hash") == true)
        #expect(error?.message.contains("secret of") == false)
        try expectIntact(Self.first, in: own.backend)
        #expect(try own.backend.search(primaryKeyQuery(Self.service, Self.second, secrets: false)).isEmpty)
        #expect(try everyItem(in: own.backend).map { $0.attributes[.account] } == [.string(Self.first)])
        // Its delete ends it alone, and frees the entry for the other name.
        #expect(try own.backend.delete(primaryKeyQuery(Self.service, Self.first, secrets: false)) == 1)
        try add(Self.second, to: own.backend)
        try expectIntact(Self.second, in: own.backend)
    }

    @Test func anUpdateRenamingAnItemOntoAnotherItemsHashIsRefusedAndChangesNothing() throws {
        let own = try kernel.ownKeyring("collision-rename")
        defer { own.remove() }
        try add(Self.first, to: own.backend)
        try add("someone-else", to: own.backend)
        let rename = ItemChanges(attributes: ItemAttributes([.account: .string(Self.second)]))
        expectKeychainError(errSecParam) {
            try own.backend.update(primaryKeyQuery(Self.service, "someone-else", secrets: false), with: rename)
        }
        try expectIntact(Self.first, in: own.backend)
        try expectIntact("someone-else", in: own.backend)
        #expect(try everyItem(in: own.backend).count == 2)
    }

    @Test func aKeyMadeByHandUnderTheOtherNameIsNoItem() throws {
        let own = try kernel.ownKeyring("collision-by-hand")
        defer { own.remove() }
        try add(Self.first, to: own.backend)
        // As `keyctl add user DESCRIPTION SECRET KEYRING` would make it.
        let other = try ItemKeyDescription(genericItem(Self.service, Self.second, Data()).primaryKey)
        _ = try Array("made by hand".utf8).withUnsafeBytes { try kernel.addUserKey(other.text, payload: $0, to: own.serial) }
        #expect(try own.backend.search(primaryKeyQuery(Self.service, Self.second, secrets: true)).isEmpty)
        #expect(try everyItem(in: own.backend).map { $0.attributes[.account] } == [.string(Self.first)])
        try expectIntact(Self.first, in: own.backend)
    }

    @Test func anEntryLeftByADeletedItemOfTheOtherNameIsTakenOver() throws {
        let own = try kernel.ownKeyring("collision-leftover")
        defer { own.remove() }
        try add(Self.first, to: own.backend)
        // The item key unlinked by hand ends the item and leaves its entry behind.
        let description = try ItemKeyDescription(genericItem(Self.service, Self.first, Data()).primaryKey)
        let itemKey = try kernel.search(own.serial, type: "user", description: description.text)
        try kernel.unlink(itemKey, from: own.serial)
        try add(Self.second, to: own.backend)
        try expectIntact(Self.second, in: own.backend)
    }
}
