import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// A query by service and account with the other primary-key attributes open is answered by
/// one lookup by name while the keyring holds no tagged item (no marker), and by reading every
/// item once one may exist (`TaggedItemsMarker`). Each test starts from a keyring of its own,
/// linked in the session keyring so that every thread of the test possesses it, since the
/// shared persistent keyring carries the marker of every test that ever stored a tagged item.
@Suite("kernel keyring tagged-items marker")
struct TaggedItemsMarkerTests {
    let kernel = KernelKeys()

    /// Runs `body` with a backend storing items in a new, empty keyring, removed afterwards.
    ///
    /// The keyring is added to the session keyring by its serial, looked up without "create".
    /// Naming `KEY_SPEC_SESSION_KEYRING` in `add_key` would, on a thread that has no session
    /// keyring of its own (a process started outside a login session, as under Docker), give
    /// that thread a new, private session keyring: the kernel keeps session keyrings per
    /// thread. The test's other threads would not possess its keyring, and the pool thread
    /// would keep that private keyring for every later test, so that a session-keyring
    /// conformance case spread over several pool threads stored its items in different
    /// keyrings and found only some of them.
    func withOwnKeyring(_ body: (KernelKeyringBackend, key_serial_t) throws -> Void) throws {
        let session = try kernel.serial(of: KEY_SPEC_SESSION_KEYRING, create: false)
        let keyring = try kernel.addKeyring(uniqueService("marker-store"), to: session)
        defer { try? kernel.unlink(keyring, from: session) }
        try body(KernelKeyringBackend(testingIn: keyring), keyring)
    }

    /// The keyring `withOwnKeyring` makes, on one thread, is in the session keyring that a
    /// thread which did not make it sees, and that thread's backend stores items there too.
    @Test func theOwnKeyringIsInTheSessionKeyringOtherThreadsSee() throws {
        let handOver = KeyringHandOver()
        let owner = Thread {
            do {
                try withOwnKeyring { _, keyring in
                    handOver.publish(keyring)
                    handOver.waitUntilChecked()
                }
            } catch {
                handOver.fail("making the keyring failed: \(error)")
            }
            handOver.finish()
        }
        owner.start()
        defer { handOver.markChecked(); handOver.waitUntilFinished() }
        guard let keyring = handOver.waitForKeyring() else {
            Issue.record(Comment(rawValue: handOver.failures.joined(separator: "; ")))
            return
        }
        // This thread was started before the keyring was made, so it shares nothing with its maker.
        let session = try kernel.serial(of: KEY_SPEC_SESSION_KEYRING, create: false)
        #expect(try kernel.contents(of: session).contains(keyring),
                "the test's keyring went to a session keyring of its maker's thread alone")
        let service = uniqueService("shared")
        let backend = KernelKeyringBackend(keyring: .session)
        try backend.add(genericItem(service, "acct", Data("s".utf8)))
        defer { _ = try? backend.delete(byServiceAndAccount(service)) }
        #expect(try backend.search(byServiceAndAccount(service)).count == 1)
    }

    func byServiceAndAccount(_ service: String, secrets: Bool = false) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword,
                  constraints: ItemAttributes([.service: .string(service), .account: .string("acct")]),
                  limit: .all, includeSecrets: secrets)
    }

    /// What the marker in `keyring` says ("no" or "yes"), nil when there is none.
    func marker(_ keyring: key_serial_t) -> String? {
        guard let key = try? kernel.search(keyring, type: "user", description: TaggedItemsMarker.description),
              let payload = try? kernel.readPublicPayload(key) else { return nil }
        let text = String(decoding: payload, as: UTF8.self)
        #expect(text.hasSuffix(" \(keyring)"), "the marker does not name its keyring: \(text)")
        return text.split(separator: " ").first.map(String.init)
    }

    /// An item with an access group and malformed attributes, made by hand with no marker: the
    /// full read of a query by service and account trips over it, the lookup by name never
    /// touches it. So the query's success proves the lookup answered it, without timing.
    @Test func withoutTaggedItemsTheQueryIsAnsweredByName() throws {
        try withOwnKeyring { backend, keyring in
            let service = uniqueService("untagged")
            try backend.add(genericItem(service, "acct", Data("v1".utf8)))
            _ = try kernel.craftItem(service, [.accessGroup: .string("by-hand")], in: keyring, attributes: Data("not json".utf8))
            #expect(marker(keyring) == "no", "an untagged add did not record that the keyring holds no tagged item")

            let query = byServiceAndAccount(service, secrets: true)
            #expect(try backend.search(query).map { $0.secret?.makeData() } == [Data("v1".utf8)])
            #expect(try backend.update(query, with: ItemChanges(secret: SecretBytes(Data("v2".utf8)))) == 1)
            #expect(try backend.search(query).map { $0.secret?.makeData() } == [Data("v2".utf8)])

            // Any tagged item stored through the library, even of another service, makes the
            // same query read every item, and so meet the broken one.
            try backend.add(genericItem(uniqueService("other"), "x", Data("o".utf8), extra: [.synchronizable: .bool(true)]))
            #expect(marker(keyring) == "yes")
            expectKeychainError(errSecDecode) { try backend.search(query) }
            expectKeychainError(errSecDecode) { try backend.delete(query) }
        }
    }

    @Test func keysAndCertificatesLeaveTheMarkerAtNo() throws {
        try withOwnKeyring { backend, keyring in
            let service = uniqueService("with-keys")
            try backend.add(genericItem(service, "acct", Data("v".utf8)))
            let tag = Data(service.utf8)
            try backend.add(keyItem(tag: tag, label: Data([1, 2]), isPrivate: true, bytes: Data("key".utf8)))
            try backend.add(KeychainItem(itemClass: .certificate, attributes: ItemAttributes([
                .issuer: .data(tag), .serialNumber: .data(Data([1])), .certificateType: .integer(3),
            ]), secret: SecretBytes(Data("der".utf8))))
            #expect(marker(keyring) == "no", "a key or certificate (named with its type) counted as a tagged password")
            #expect(try backend.search(byServiceAndAccount(service, secrets: true)).map { $0.secret?.makeData() } == [Data("v".utf8)])
            let keys = try backend.search(ItemQuery(itemClass: .key, constraints: ItemAttributes([.applicationTag: .data(tag)]),
                                                    limit: .all, includeSecrets: true))
            #expect(keys.map { $0.secret?.makeData() } == [Data("key".utf8)], "the key is found by its tag all the same")
        }
    }

    @Test func withTaggedItemsTheQueryFindsEveryAccessGroup() throws {
        try withOwnKeyring { backend, keyring in
            let service = uniqueService("tagged")
            let plain = genericItem(service, "acct", Data("p".utf8))
            try backend.add(plain)
            // An update that gives an item an access group is a tagged write too.
            let renamed = try backend.update(ItemQuery(primaryKey: plain.primaryKey),
                                             with: ItemChanges(attributes: ItemAttributes([.accessGroup: .string("moved")])))
            #expect(renamed == 1)
            #expect(marker(keyring) == "yes", "an update to a tagged name did not set the marker")
            try backend.add(genericItem(service, "acct", Data("q".utf8)))
            try backend.add(genericItem(service, "acct", Data("t".utf8), extra: [.accessGroup: .string("team")]))

            let query = byServiceAndAccount(service)
            let groups = try backend.search(query).map { $0.attributes.string(.accessGroup) ?? "" }
            #expect(groups.sorted() == ["", "moved", "team"])
            #expect(try backend.update(query, with: ItemChanges(attributes: ItemAttributes([.label: .string("l")]))) == 3)
            #expect(try backend.delete(query) == 3)
            #expect(try backend.search(query).isEmpty)
            #expect(marker(keyring) == "yes", "the marker went back")
        }
    }

    /// The kernel's search by name looks into nested keyrings, where another store's marker
    /// may say "no" while the target holds tagged items of its own: it is never taken for the
    /// target's, and the target's first write gives it its own.
    @Test func aMarkerOfANestedKeyringIsNotTheTargets() throws {
        try withOwnKeyring { backend, keyring in
            let nested = try kernel.addKeyring(uniqueService("nested-store"), to: keyring)
            try KernelKeyringBackend(testingIn: nested).add(genericItem(uniqueService("nested"), "acct", Data("n".utf8)))
            let store = TaggedItemsMarker(kernel: kernel)
            #expect(!store.mayHoldTaggedItems(nested))
            #expect(store.mayHoldTaggedItems(keyring), "the nested keyring's marker was taken for the target's")
            try backend.add(genericItem(uniqueService("own"), "acct", Data("o".utf8)))
            #expect(!store.mayHoldTaggedItems(keyring), "an untagged write did not give the target its own marker")
        }
    }

    /// A tagged add racing a query by service and account in another thread, in a keyring that
    /// starts without the marker: every search that starts after the add returned finds the
    /// item, and a delete that starts after it removes it. Searches and deletes race in
    /// alternate rounds, as a racing delete would rightly hide the item from a search.
    @Test func aTaggedAddIsNeverLostToARacingQuery() throws {
        for round in 0..<40 {
            try withOwnKeyring { backend, _ in
                let service = uniqueService("race")
                try backend.add(genericItem(service, "acct", Data("u".utf8)))
                let tagged = genericItem(service, "acct", Data("t".utf8), extra: [.accessGroup: .string("racer")])
                let query = byServiceAndAccount(service)
                let race = RaceState()
                let racer = round.isMultiple(of: 2)
                    ? Thread {
                        race.run { started in
                            let groups = try backend.search(query).map { $0.attributes.string(.accessGroup) ?? "" }
                            if started && !groups.contains("racer") { race.fail("round \(round): a search missed it: \(groups)") }
                            return started
                        }
                    }
                    : Thread {
                        race.run { started in
                            _ = try backend.delete(query)
                            if started, try !backend.search(ItemQuery(primaryKey: tagged.primaryKey)).isEmpty {
                                race.fail("round \(round): a delete left it behind")
                            }
                            return started
                        }
                    }
                racer.start()
                race.waitUntilRunning()
                try backend.add(tagged)
                race.markAdded()
                race.waitUntilFinished()
                for failure in race.failures { Issue.record(Comment(rawValue: failure)) }
            }
        }
    }
}

/// What the test thread and the racing thread of one round share.
private final class RaceState: @unchecked Sendable {
    private let lock = NSCondition()
    private var added = false
    private var running = 0
    private var finished = 0
    private(set) var failures: [String] = []

    func fail(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        failures.append(message)
    }

    func markAdded() {
        lock.lock(); defer { lock.unlock() }
        added = true
    }

    /// Repeats `step` (told whether the add had returned before the step began) until a step
    /// that began after it returns true; then reports the thread finished.
    func run(_ step: (Bool) throws -> Bool) {
        lock.lock(); running += 1; lock.broadcast(); lock.unlock()
        while true {
            lock.lock(); let started = added; lock.unlock()
            do {
                if try step(started) { break }
            } catch {
                fail("a racing query failed: \(error)")
                break
            }
        }
        lock.lock(); finished += 1; lock.broadcast(); lock.unlock()
    }

    func waitUntilRunning() { wait { self.running > 0 } }
    func waitUntilFinished() { wait { self.finished > 0 } }

    private func wait(_ condition: () -> Bool) {
        lock.lock(); defer { lock.unlock() }
        while !condition() { lock.wait() }
    }
}

/// Hands the keyring one thread made to the thread that checks it, and holds the maker until
/// the check is done.
private final class KeyringHandOver: @unchecked Sendable {
    private let lock = NSCondition()
    private var keyring: key_serial_t?
    private var checked = false
    private var finished = false
    private(set) var failures: [String] = []

    func publish(_ serial: key_serial_t) { update { keyring = serial } }
    func fail(_ message: String) { update { failures.append(message) } }
    func markChecked() { update { checked = true } }
    func finish() { update { finished = true } }

    /// The keyring made, or nil when making it failed.
    func waitForKeyring() -> key_serial_t? {
        wait { self.keyring != nil || self.finished }
        lock.lock(); defer { lock.unlock() }
        return keyring
    }

    func waitUntilChecked() { wait { self.checked } }
    func waitUntilFinished() { wait { self.finished } }

    private func update(_ change: () -> Void) {
        lock.lock(); defer { lock.unlock() }
        change()
        lock.broadcast()
    }

    private func wait(_ condition: () -> Bool) {
        lock.lock(); defer { lock.unlock() }
        while !condition() { lock.wait() }
    }
}
