import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Synchronization
import Testing

/// A read of a secret alone by its primary key, once its item key is confirmed
/// (`ConfirmedItemKeys`), answers what a full read (`includeAttributes` true) answers: after
/// every change the backend makes to an item, and after changes made by hand with `keyctl` to
/// the item key itself.
@Suite("kernel keyring secret-only reads against full reads")
struct ConfirmedItemKeysReviewTests {
    let kernel = KernelKeys()

    /// What a read gave: the secrets found, or the status it failed with.
    enum Outcome: Equatable, CustomStringConvertible {
        case secrets([Data?])
        case failed(OSStatus)

        var description: String {
            switch self {
            case .secrets(let secrets): return "secrets \(secrets.map { $0.map { String(decoding: $0, as: UTF8.self) } ?? "nil" })"
            case .failed(let status): return "failed \(status)"
            }
        }
    }

    func outcome(_ body: () throws -> [KeychainItem]) -> Outcome {
        do {
            return .secrets(try body().map { $0.secret?.makeData() })
        } catch let error as KeychainError {
            return .failed(error.status)
        } catch {
            return .failed(errSecIO)
        }
    }

    /// The query for the secret of the item `key` names, alone or with the attributes.
    func query(_ key: PrimaryKey, attributes: Bool) -> ItemQuery {
        var query = ItemQuery(primaryKey: key, includeSecrets: true)
        query.includeAttributes = attributes
        return query
    }

    /// Checks that a secret-only read of `key` by `backend` gives what a full read gives, and
    /// that this is `expected`.
    func expectReads(_ key: PrimaryKey, by backend: KernelKeyringBackend, _ expected: Outcome,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let full = outcome { try backend.search(query(key, attributes: true)) }
        let secretOnly = outcome { try backend.search(query(key, attributes: false)) }
        #expect(full == expected, "full read", sourceLocation: sourceLocation)
        #expect(secretOnly == expected, "secret-only read", sourceLocation: sourceLocation)
    }

    func item(_ service: String, _ secret: String, _ extra: [AttributeKey: AttributeValue] = [:]) -> KeychainItem {
        genericItem(service, "acct", Data(secret.utf8), extra: extra)
    }

    /// Reads the secret of `item` alone twice, the second time from a confirmed item key.
    func confirm(_ item: KeychainItem, by backend: KernelKeyringBackend) throws {
        for _ in 0..<2 {
            #expect(try backend.search(query(item.primaryKey, attributes: false)).map { $0.secret?.makeData() }
                        == [item.secret?.makeData()])
        }
    }

    func itemKey(of key: PrimaryKey, in target: key_serial_t) throws -> key_serial_t {
        try kernel.search(target, type: "user", description: try ItemKeyDescription(key).text)
    }

    static let largeComment = String(repeating: "c", count: 3000)

    // MARK: - What a secret-only result carries

    /// A secret-only result names the item a full read names (`KeychainItem.primaryKey`), a
    /// shared item as well as one in a group, whether it was read from a confirmed key or not.
    @Test(arguments: [nil, "team.app"])
    func aSecretOnlyResultNamesTheItemAFullReadNames(group: String?) throws {
        let own = try kernel.ownKeyring("review-primary-key")
        defer { own.remove() }
        let stored = item(uniqueService("review-primary-key"), "s", group.map { [.accessGroup: .string($0)] } ?? [:])
        try own.backend.add(stored)
        let full = try own.backend.search(query(stored.primaryKey, attributes: true))
        for _ in 0..<2 {
            let found = try own.backend.search(query(stored.primaryKey, attributes: false))
            #expect(found.map(\.primaryKey) == full.map(\.primaryKey))
            #expect(found.map(\.primaryKey) == [stored.primaryKey])
        }
    }

    @Test func aConfirmedInternetPasswordDeletedElsewhereIsGone() throws {
        let own = try kernel.ownKeyring("review-internet")
        defer { own.remove() }
        let stored = KeychainItem(itemClass: .internetPassword,
                                  attributes: ItemAttributes([.server: .string(uniqueService("review-internet")), .account: .string("acct"),
                                                              .port: .integer(8443), .protocol: .string("htps")]),
                                  secret: SecretBytes(Data("web".utf8)))
        try own.backend.add(stored)
        try confirm(stored, by: own.backend)
        #expect(try KernelKeyringBackend(testingIn: own.serial).delete(ItemQuery(primaryKey: stored.primaryKey)) == 1)
        expectReads(stored.primaryKey, by: own.backend, .secrets([]))
    }

    // MARK: - Changes this version makes

    @Test func anItemRenamedByAnUpdateIsGoneUnderItsOldName() throws {
        let own = try kernel.ownKeyring("review-rename")
        defer { own.remove() }
        let service = uniqueService("review-rename")
        let stored = item(service, "old")
        try own.backend.add(stored)
        try confirm(stored, by: own.backend)
        for (attribute, value) in [(AttributeKey.account, AttributeValue.string("renamed")),
                                   (.synchronizable, .bool(true)), (.accessGroup, .string("other.group"))] {
            let other = KernelKeyringBackend(testingIn: own.serial)
            #expect(try other.update(ItemQuery(primaryKey: stored.primaryKey), with: ItemChanges(attributes: ItemAttributes([attribute: value]))) == 1)
            expectReads(stored.primaryKey, by: own.backend, .secrets([]))
            var moved = stored
            moved.attributes[attribute] = value
            expectReads(moved.primaryKey, by: own.backend, .secrets([Data("old".utf8)]))
            // Back again, under a new item key.
            #expect(try other.update(ItemQuery(primaryKey: moved.primaryKey),
                                     with: ItemChanges(attributes: ItemAttributes([attribute: stored.attributes[attribute] ?? (value == .bool(true) ? .bool(false) : .string(""))]))) == 1)
            expectReads(moved.primaryKey, by: own.backend, .secrets([]))
            expectReads(stored.primaryKey, by: own.backend, .secrets([Data("old".utf8)]))
            try confirm(stored, by: own.backend)
        }
    }

    @Test func anItemWithLargeAttributesReadsAsAFullReadDoes() throws {
        let own = try kernel.ownKeyring("review-large")
        defer { own.remove() }
        let stored = item(uniqueService("review-large"), "large", [.comment: .string(Self.largeComment)])
        try own.backend.add(stored)
        try confirm(stored, by: own.backend)
        let other = KernelKeyringBackend(testingIn: own.serial)
        let byKey = ItemQuery(primaryKey: stored.primaryKey)
        // Small, large again, and an empty secret, each read alone from the confirmed key.
        #expect(try other.update(byKey, with: ItemChanges(attributes: ItemAttributes([.comment: .string("short")]))) == 1)
        expectReads(stored.primaryKey, by: own.backend, .secrets([Data("large".utf8)]))
        #expect(try other.update(byKey, with: ItemChanges(attributes: ItemAttributes([.comment: .string(Self.largeComment + "x")]),
                                                          secret: SecretBytes(Data()))) == 1)
        expectReads(stored.primaryKey, by: own.backend, .secrets([Data()]))
        #expect(try other.delete(byKey) == 1)
        expectReads(stored.primaryKey, by: own.backend, .secrets([]))
    }

    /// Adds enough items to split the records several times, while an item confirmed first is
    /// read alone; deleted, it is gone.
    @Test func aConfirmedItemReadsThroughSplitsAndIsGoneOnceDeleted() throws {
        let own = try kernel.ownKeyring("review-split")
        defer { own.remove() }
        let service = uniqueService("review-split")
        let first = genericItem(service, "first", Data("one".utf8), extra: [.label: .string("first")])
        try own.backend.add(first)
        try confirm(first, by: own.backend)
        for index in 0..<60 {
            try own.backend.add(genericItem(service, "a\(index)", Data("s\(index)".utf8),
                                            extra: [.label: .string(String(repeating: "l", count: 80))]))
        }
        #expect(try kernel.search(own.serial, type: "user", description: ItemRecords.recordDescription(own.serial, bucket: 1)) > 0)
        expectReads(first.primaryKey, by: own.backend, .secrets([Data("one".utf8)]))
        #expect(try KernelKeyringBackend(testingIn: own.serial).delete(ItemQuery(primaryKey: first.primaryKey)) == 1)
        expectReads(first.primaryKey, by: own.backend, .secrets([]))
    }

    // MARK: - The item key changed by hand

    @Test func aConfirmedItemKeyRevokedByHandIsNotAvailable() throws {
        let own = try kernel.ownKeyring("review-revoke")
        defer { own.remove() }
        let stored = item(uniqueService("review-revoke"), "s")
        try own.backend.add(stored)
        try confirm(stored, by: own.backend)
        #expect(keyctl_revoke(try itemKey(of: stored.primaryKey, in: own.serial)) == 0)
        expectReads(stored.primaryKey, by: own.backend, .failed(errSecDataNotAvailable))
    }

    @Test func aConfirmedItemKeyReplacedByHandReadsTheNewKey() throws {
        let own = try kernel.ownKeyring("review-replace")
        defer { own.remove() }
        let stored = item(uniqueService("review-replace"), "s")
        try own.backend.add(stored)
        try confirm(stored, by: own.backend)
        let name = try ItemKeyDescription(stored.primaryKey).text
        try kernel.unlink(try itemKey(of: stored.primaryKey, in: own.serial), from: own.serial)
        _ = try Data("by hand".utf8).withUnsafeBytes { try kernel.addUserKey(name, payload: $0, to: own.serial) }
        expectReads(stored.primaryKey, by: own.backend, .secrets([Data("by hand".utf8)]))
        // Updated by hand in place: the same key, the new secret.
        _ = try Data("again".utf8).withUnsafeBytes { try kernel.addUserKey(name, payload: $0, to: own.serial) }
        expectReads(stored.primaryKey, by: own.backend, .secrets([Data("again".utf8)]))
    }

    // MARK: - Other processes

    /// Another process (the `linux-keychain` CLI, in the persistent keyring this process uses too)
    /// deletes, adds again and overwrites an item this process has confirmed.
    @Test func anotherProcessDeletingAndAddingAgainIsSeenByASecretOnlyRead() throws {
        let cli = try builtCLI()
        func keychain(_ arguments: [String], input: Data? = nil) throws {
            let run = try KeychainCLIProcess.run(cli, arguments, input: input,
                                                 environment: ["KEYCHAIN_KEYRING": "", "KEYCHAIN_BACKEND": "keyring"])
            try #require(run.status == 0, "linux-keychain \(arguments.first ?? "") failed: \(run.errorText)")
        }
        let backend = KernelKeyringBackend(keyring: nil)
        let service = uniqueService("review-process")
        let stored = item(service, "one")
        try keychain(["set", service, "acct"], input: Data("one".utf8))
        defer { _ = try? backend.delete(ItemQuery(primaryKey: stored.primaryKey)) }
        try confirm(stored, by: backend)
        try keychain(["delete", service, "acct"])
        expectReads(stored.primaryKey, by: backend, .secrets([]))
        try keychain(["set", service, "acct"], input: Data("two".utf8))
        try confirm(item(service, "two"), by: backend)
        try keychain(["set", "--allow-empty", service, "acct"], input: Data())
        expectReads(stored.primaryKey, by: backend, .secrets([Data()]))
        try keychain(["set", service, "acct"], input: Data("three".utf8))
        expectReads(stored.primaryKey, by: backend, .secrets([Data("three".utf8)]))
        try keychain(["delete", service, "acct"])
        expectReads(stored.primaryKey, by: backend, .secrets([]))
    }

    // MARK: - The kernel call counter

    /// `KernelKeys.callsOnThisThread` counts each call this thread makes, failed ones too, and
    /// none another thread makes.
    @Test func theCallCounterCountsThisThreadsCallsOnly() throws {
        let own = try kernel.ownKeyring("review-counter")
        defer { own.remove() }
        let before = KernelKeys.callsOnThisThread
        _ = try? kernel.search(own.serial, type: "user", description: uniqueService("review-counter-missing"))
        _ = try kernel.contents(of: own.serial)
        #expect(KernelKeys.callsOnThisThread - before == 2)
        let elsewhere = Atomic<Int>(-1)
        let done = DispatchSemaphore(value: 0)
        let onThisThread = KernelKeys.callsOnThisThread
        let serial = own.serial
        Thread.detachNewThread {
            let start = KernelKeys.callsOnThisThread
            // Failed or not (this thread may not possess the keyring), five calls.
            for _ in 0..<5 { _ = try? KernelKeys().contents(of: serial) }
            elsewhere.store(KernelKeys.callsOnThisThread - start, ordering: .releasing)
            done.signal()
        }
        done.wait()
        #expect(elsewhere.load(ordering: .acquiring) == 5)
        #expect(KernelKeys.callsOnThisThread == onThisThread)
    }

    // MARK: - Threads

    /// Readers of the secret alone, on other threads, never see a generation of the item whose
    /// delete had returned before their read began, nor one added after it ended.
    @Test func readersOnOtherThreadsNeverSeeADeletedGeneration() throws {
        try kernel.withSessionKeyring("review-threads") { target in
            let writer = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("review-threads")
            let key = item(service, "").primaryKey
            // The generation whose add began last, and the last whose delete returned.
            let added = Atomic<Int>(0)
            let deleted = Atomic<Int>(0)
            let stale = Atomic<Int>(0)
            // Reads of an item found that made the two calls of a confirmed key.
            let shortcuts = Atomic<Int>(0)
            let finished = Atomic<Bool>(false)
            let done = DispatchSemaphore(value: 0)
            let threads = 3
            for _ in 0..<threads {
                Thread.detachNewThread {
                    let reader = KernelKeyringBackend(testingIn: target)
                    var wanted = ItemQuery(primaryKey: key, includeSecrets: true)
                    wanted.includeAttributes = false
                    while !finished.load(ordering: .acquiring) {
                        let before = deleted.load(ordering: .acquiring)
                        let calls = KernelKeys.callsOnThisThread
                        guard let found = try? reader.search(wanted) else { continue }
                        if !found.isEmpty, KernelKeys.callsOnThisThread - calls == 2 { shortcuts.add(1, ordering: .relaxed) }
                        let after = added.load(ordering: .acquiring)
                        for result in found {
                            let generation = Int(String(decoding: result.secret?.makeData() ?? Data(), as: UTF8.self)) ?? -1
                            if generation <= before || generation > after { stale.add(1, ordering: .relaxed) }
                        }
                    }
                    done.signal()
                }
            }
            defer {
                finished.store(true, ordering: .releasing)
                for _ in 0..<threads { done.wait() }
            }
            for generation in 1...300 {
                added.store(generation, ordering: .releasing)
                try writer.add(item(service, "\(generation)"))
                // Updated in place now and then: the same key, the secret of the same generation.
                if generation % 3 == 0 {
                    _ = try writer.update(ItemQuery(primaryKey: key), with: ItemChanges(attributes: ItemAttributes([.label: .string("g")])))
                }
                #expect(try writer.delete(ItemQuery(primaryKey: key)) == 1)
                deleted.store(generation, ordering: .releasing)
            }
            finished.store(true, ordering: .releasing)
            #expect(stale.load(ordering: .relaxed) == 0)
            #expect(shortcuts.load(ordering: .relaxed) > 0, "no read took the confirmed key's two calls")
        }
    }
}
