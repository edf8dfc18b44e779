import Foundation
import KeychainConformance
import KeychainCore
import KeychainEntryPoints
import KeychainTestSupport
import KeychainVault
import LinuxKeychain
import Testing

/// An update by the whole primary key, sent as one KV `PATCH`, checked on the stored secret
/// with `bao`: it changes exactly what it names, loses no concurrent change, creates nothing,
/// and where the server refuses `PATCH` the read-then-write update still does the job.
@Suite("vault update by primary key is one merge patch")
struct VaultPatchUpdateTests {
    let prefix = VaultTestServer.uniquePrefix("patch")

    private func backend(token: String? = nil, mount: String = "secret") throws -> VaultBackend {
        let root = try VaultTestServer.root()
        return VaultBackend(configuration: try VaultConfiguration(address: root.address, token: VaultToken(token ?? root.token),
                                                                  mount: mount, prefix: prefix))
    }

    private func key(_ service: String, _ account: String) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))
    }

    private func stored(_ service: String, _ account: String) throws -> KeychainItem? {
        try backend().search(ItemQuery(primaryKey: key(service, account), includeSecrets: true)).first
    }

    /// The stored fields of the item, as `bao kv get -format=json` shows them.
    private func fields(_ service: String, _ account: String, mount: String = "secret") throws -> [String: Any] {
        let read = try VaultTestServer.bao(["kv", "get", "-mount=\(mount)", "-format=json", "\(prefix)/generic/\(service)/\(account)"])
        try #require(read.status == 0, "\(read.errorText)")
        let json = try JSONSerialization.jsonObject(with: Data(read.outputText.utf8)) as? [String: Any]
        return try #require((json?["data"] as? [String: Any])?["data"] as? [String: Any])
    }

    private func currentVersion(_ service: String, _ account: String) throws -> Int? {
        let read = try VaultTestServer.bao(["kv", "metadata", "get", "-mount=secret", "-format=json", "\(prefix)/generic/\(service)/\(account)"])
        guard read.status == 0 else { return nil }
        let json = try JSONSerialization.jsonObject(with: Data(read.outputText.utf8)) as? [String: Any]
        return (json?["data"] as? [String: Any])?["current_version"] as? Int
    }

    @Test func patchChangesOnlyTheNamedFieldsAndKeepsTheOperatorsOwn() throws {
        let backend = try backend()
        try backend.add(genericItem("app", "alice", Data("old".utf8),
                                               extra: [.label: .string("Label"), .creationDate: .date(Date(timeIntervalSince1970: 1000))]))
        let annotated = try VaultTestServer.bao(["kv", "patch", "-mount=secret", "\(prefix)/generic/app/alice", "owner=ops"])
        try #require(annotated.status == 0, "\(annotated.errorText)")

        let modified = Date(timeIntervalSince1970: 2000)
        let changed = try backend.update(ItemQuery(primaryKey: key("app", "alice")),
                                         with: ItemChanges(attributes: ItemAttributes([.creator: .integer(42), .modificationDate: .date(modified)]),
                                                           secret: SecretBytes(Data("new".utf8))))
        #expect(changed == 1)
        let item = try #require(try stored("app", "alice"))
        #expect(item.secret?.makeData() == Data("new".utf8))
        #expect(item.attributes.string(.label) == "Label")
        #expect(item.attributes[.creator] == .integer(42))
        #expect(item.attributes[.creationDate] == .date(Date(timeIntervalSince1970: 1000)))
        #expect(item.attributes[.modificationDate] == .date(modified))
        #expect(try fields("app", "alice")["owner"] as? String == "ops", "the operator's field was dropped")
    }

    /// Merge patch removes a field given as null: switching between a printable and a binary
    /// secret leaves exactly one secret field.
    @Test func switchingSecretKindLeavesExactlyOneSecretField() throws {
        let backend = try backend()
        try backend.add(genericItem("kind", "a", Data("printable".utf8)))
        let binary = Data([0, 0xFF, 0x80, 0x1B])
        #expect(try backend.update(ItemQuery(primaryKey: key("kind", "a")), with: ItemChanges(secret: SecretBytes(binary))) == 1)
        var stored = try fields("kind", "a")
        #expect(stored["password"] == nil, "\(stored.keys.sorted())")
        #expect((stored["password_base64"] as? String).flatMap { Data(base64Encoded: $0) } == binary)
        #expect(try self.stored("kind", "a")?.secret?.makeData() == binary)

        #expect(try backend.update(ItemQuery(primaryKey: key("kind", "a")), with: ItemChanges(secret: SecretBytes(Data("again".utf8)))) == 1)
        stored = try fields("kind", "a")
        #expect(stored["password_base64"] == nil, "\(stored.keys.sorted())")
        #expect(stored["password"] as? String == "again")
    }

    /// Which attributes were given as the other type Apple accepts (`ValueTypes`) comes out of
    /// an update as from the read-then-write one: kept for attributes the update does not set,
    /// taken from the update for those it sets. A patch cannot merge that record without
    /// reading it, so such an update must not lose the stored half or keep a stale one.
    @Test(arguments: [
        (stored: Set<AttributeKey>([.account]), changed: Set<AttributeKey>([.label])),
        (stored: Set<AttributeKey>([.label]), changed: Set<AttributeKey>()),
        (stored: Set<AttributeKey>([.account, .label]), changed: Set<AttributeKey>([.comment])),
    ])
    func valueTypesAfterAnUpdateAreThoseOfTheMergedItem(stored storedSwaps: Set<AttributeKey>, changed changedSwaps: Set<AttributeKey>) throws {
        let backend = try backend()
        let account = "types-\(storedSwaps.map(\.rawValue).sorted().joined())"
        var original = genericItem("types", account, Data("s".utf8), extra: [.label: .string("Old")])
        original.attributes.keysGivenAsOtherType = storedSwaps
        try backend.add(original)
        var changes = ItemChanges(attributes: ItemAttributes([.label: .string("New")]))
        if changedSwaps.contains(.comment) { changes.attributes[.comment] = .string("C") }
        changes.attributes.keysGivenAsOtherType = changedSwaps
        #expect(try backend.update(ItemQuery(primaryKey: key("types", account)), with: changes) == 1)
        let expected = changes.applied(to: original).attributes.keysGivenAsOtherType
        let item = try #require(try stored("types", account))
        #expect(item.attributes.keysGivenAsOtherType == expected,
                "stored \(storedSwaps), changed \(changedSwaps): read back \(item.attributes.keysGivenAsOtherType), expected \(expected)")
        #expect(item.attributes.string(.label) == "New")
    }

    @Test func missingItemIsNotFoundAndNothingIsCreated() throws {
        let changed = try backend().update(ItemQuery(primaryKey: key("absent", "a")), with: ItemChanges(secret: SecretBytes(Data("x".utf8))))
        #expect(changed == 0)
        #expect(try currentVersion("absent", "a") == nil, "the update created the item")
    }

    /// A soft-deleted latest version (`bao kv delete`) is no item, and stays deleted.
    @Test func softDeletedItemIsNotFoundAndStaysDeleted() throws {
        let backend = try backend()
        try backend.add(genericItem("soft", "a", Data("v1".utf8)))
        let removed = try VaultTestServer.bao(["kv", "delete", "-mount=secret", "\(prefix)/generic/soft/a"])
        try #require(removed.status == 0, "\(removed.errorText)")
        let changed = try backend.update(ItemQuery(primaryKey: key("soft", "a")), with: ItemChanges(secret: SecretBytes(Data("v2".utf8))))
        #expect(changed == 0)
        #expect(try currentVersion("soft", "a") == 1, "the update wrote a version")
        #expect(try stored("soft", "a") == nil)
    }

    /// Through the SecItem front end, a missing item is errSecItemNotFound.
    @Test func frontEndUpdateOfMissingItemIsItemNotFound() throws {
        let operations = KeychainOperations(backend: try backend(), scope: .everything)
        let error = keychainError { _ = try operations.update(ItemQuery(primaryKey: key("nowhere", "a")),
                                                                with: ItemChanges(secret: SecretBytes(Data("x".utf8)))) }
        #expect(error?.status == errSecItemNotFound, "\(String(describing: error))")
        #expect(try currentVersion("nowhere", "a") == nil)
    }

    /// Each client changes a different attribute at the same moment: five by patch, which the
    /// server merges into the version current under its lock, and three (label, comment and
    /// description, which take a String or a Data) by read and check-and-set, which retries on
    /// a newer version; all eight survive.
    @Test func concurrentPatchesOfDifferentFieldsLoseNoChange() throws {
        try backend().add(genericItem("contended", "a", Data("s".utf8)))
        let changes: [(AttributeKey, AttributeValue)] = [
            (.label, .string("L")), (.comment, .string("C")), (.itemDescription, .string("D")), (.creator, .integer(1)),
            (.type, .integer(2)), (.isInvisible, .bool(true)), (.isNegative, .bool(true)), (.accessible, .string("ak")),
        ]
        let clients = try changes.map { _ in try backend() }
        let failures = Outcomes()
        DispatchQueue.concurrentPerform(iterations: changes.count) { index in
            do {
                let (attribute, value) = changes[index]
                let changed = try clients[index].update(ItemQuery(primaryKey: key("contended", "a")),
                                                        with: ItemChanges(attributes: ItemAttributes([attribute: value])))
                if changed != 1 { failures.append("client \(index) changed \(changed)") }
            } catch {
                failures.append("client \(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let item = try #require(try stored("contended", "a"))
        for (attribute, value) in changes { #expect(item.attributes[attribute] == value, "lost the change of \(attribute)") }
        #expect(item.secret?.makeData() == Data("s".utf8))
        #expect(try currentVersion("contended", "a") == 1 + changes.count)
    }

    /// A policy from before `patch` (create, read, update) still updates, through the
    /// read-then-write fallback, and changes nothing else.
    @Test func policyWithoutPatchCapabilityStillUpdates() throws {
        let token = try VaultPatchFixture.token(allowing: ["create", "read", "update"], under: prefix)
        let backend = try backend(token: token)
        try backend.add(genericItem("limited", "a", Data("old".utf8), extra: [.label: .string("Label")]))
        #expect(try backend.update(ItemQuery(primaryKey: key("limited", "a")), with: ItemChanges(secret: SecretBytes(Data("new".utf8)))) == 1)
        let item = try #require(try stored("limited", "a"))
        #expect(item.secret?.makeData() == Data("new".utf8))
        #expect(item.attributes.string(.label) == "Label")
        #expect(try backend.update(ItemQuery(primaryKey: key("limited", "missing")), with: ItemChanges(secret: SecretBytes(Data("x".utf8)))) == 0)
        #expect(try currentVersion("limited", "missing") == nil)
    }

    /// On a `cas_required` mount every write names a version; the fallback's does.
    @Test func checkAndSetRequiredMountStillUpdates() throws {
        let mount = try VaultPatchFixture.checkAndSetRequiredMount()
        let backend = try backend(mount: mount)
        try backend.add(genericItem("strict", "a", Data("old".utf8)))
        #expect(try backend.update(ItemQuery(primaryKey: key("strict", "a")), with: ItemChanges(secret: SecretBytes(Data("new".utf8)))) == 1)
        #expect(try backend.search(ItemQuery(primaryKey: key("strict", "a"), includeSecrets: true)).first?.secret?.makeData() == Data("new".utf8))
        #expect(try fields("strict", "a", mount: mount)["password"] as? String == "new")
        #expect(try backend.update(ItemQuery(primaryKey: key("strict", "missing")), with: ItemChanges(secret: SecretBytes(Data("x".utf8)))) == 0)
    }
}
