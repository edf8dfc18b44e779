import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainSystemCalls
import KeychainTestSupport
import Testing

/// What the backend does in the kernel, checked in the kernel: where keys go, what they hold,
/// what they grant, the limits, and keys that exist but cannot be used.
@Suite("kernel keyring backend behaviour")
struct KeyringBehaviourTests {
    let backend = KernelKeyringBackend(keyring: nil)
    let kernel = KernelKeys()

    /// The default keyring, linked into this thread's process keyring so this thread possesses it.
    /// Sync tests run on one thread throughout, so the link holds for the whole test.
    func possessedTarget() throws -> key_serial_t {
        try kernel.resolve(nil).serial
    }

    @Test func defaultIsThePersistentKeyringAndAvailabilityNamesIt() throws {
        let availability = backend.availability()
        let serial = try possessedTarget()
        #expect(availability.isAvailable)
        #expect(availability.explanation == "persistent keyring \(serial) of uid \(getuid())")
        #expect(KernelKeyringBackend(keyring: .user).availability().explanation.hasPrefix("user keyring "))
        #expect(KernelKeyringBackend(keyring: .session).availability().explanation.hasPrefix("session keyring "))
    }

    @Test func theKeyringVariableChoosesAndRejectsNonsense() throws {
        let user = KernelKeyringBackend(environment: ["KEYCHAIN_KEYRING": "user"])
        #expect(user.availability().explanation.hasPrefix("user keyring "))
        let bogus = KernelKeyringBackend(environment: ["KEYCHAIN_KEYRING": "thread"])
        guard case .unavailable(let reason) = bogus.availability() else {
            Issue.record("KEYCHAIN_KEYRING=thread was accepted")
            return
        }
        #expect(reason.status == errSecParam)
        #expect(reason.message.contains("persistent, user or session"))
        expectKeychainError(errSecParam) { try bogus.add(genericItem(uniqueService("bogus"), "a", Data("x".utf8))) }
    }

    @Test func secretIsTheRawPayloadOfAUserKeyThatGrantsNothingToOthers() throws {
        let service = uniqueService("layout")
        let secret = Data([0, 1, 2, 10, 13, 255]) + Data("tail".utf8)
        try backend.add(genericItem(service, "al:ice", secret, extra: [.label: .string("Shown label")]))
        defer { _ = try? backend.delete(exactQuery(service, "al:ice", secrets: false)) }

        let target = try possessedTarget()
        let name = "linux-keychain:genp:\(service):al%3Aice"
        let secretKey = try kernel.search(target, type: "user", description: name)
        #expect(try kernel.readSecret(secretKey).makeData() == secret)
        #expect((try? kernel.search(target, type: "user", description: "linux-keychain-attributes:genp:\(service):al%3Aice")) == nil,
                "a small item has an attributes key")
        let recordKey = try kernel.search(target, type: "user", description: "linux-keychain:records:\(target):0")
        let contents = try kernel.contents(of: target)
        #expect(contents.contains(secretKey) && contents.contains(recordKey), "the keys are not directly in the target")
        #expect((try? kernel.search(target, type: "keyring", description: name)) == nil, "an item keyring was made")

        let userGroupOther: key_perm_t = 0x00FF_FFFF
        for key in [secretKey, recordKey] {
            let record = try kernel.describe(key)
            #expect(record.permissions & userGroupOther == 0, "key \(key) grants \(String(record.permissions, radix: 16))")
            #expect(record.permissions & key_perm_t(KEY_POS_READ | KEY_POS_SEARCH | KEY_POS_VIEW) != 0)
            #expect(record.permissions & key_perm_t(KEY_POS_SETATTR) == 0)
        }
        let description = try ItemKeyDescription(genericItem(service, "al:ice", Data()).primaryKey)
        let entry = try #require(try ItemRecords(kernel: kernel).entry(named: description, in: target))
        #expect(entry.attributes["labl"] == "Shown label")
        #expect(entry.itemKey == secretKey)
        #expect(entry.attributes["svce"] == nil && entry.attributes["acct"] == nil, "the entry repeats the name")
    }

    @Test func theLargestUserKeyRoundTripsAndOneByteMoreIsRefusedBeforeTheKernel() throws {
        let service = uniqueService("limits")
        defer { _ = try? backend.delete(exactQuery(service, "max", secrets: false)) }
        let largest = Data((0..<32767).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try backend.add(genericItem(service, "max", largest))
        #expect(try backend.search(exactQuery(service, "max", secrets: true)).first?.secret?.makeData() == largest)

        // A kernel that refuses every call proves the size check comes first.
        let refusing = KernelKeyringBackend(choice: .success(nil), kernel: KernelKeys(simulatedRefusal: .notPermitted))
        let tooLarge = genericItem(service, "over", Data(count: 32768))
        expectKeychainError(errSecDataTooLarge) { try refusing.add(tooLarge) }
        expectKeychainError(errSecDataTooLarge) { try backend.add(tooLarge) }
        expectKeychainError(errSecDataTooLarge) {
            try backend.update(exactQuery(service, "max", secrets: false), with: ItemChanges(secret: SecretBytes(Data(count: 32768))))
        }
        #expect(try backend.search(exactQuery(service, "max", secrets: true)).first?.secret?.makeData() == largest)
        #expect(try backend.search(exactQuery(service, "over", secrets: false)).isEmpty)
    }

    @Test(arguments: [Errno.notPermitted, .notImplemented])
    func aBlockedKernelKeyringIsNotAvailable(_ refusal: Errno) throws {
        let blocked = KernelKeyringBackend(choice: .success(nil), kernel: KernelKeys(simulatedRefusal: refusal))
        guard case .unavailable(let reason) = blocked.availability() else {
            Issue.record("a refused keyctl left the backend available")
            return
        }
        #expect(reason.status == errSecNotAvailable)
        #expect(reason.message.contains("kernel keyring is blocked here"))
        let item = genericItem(uniqueService("blocked"), "a", Data("x".utf8))
        expectKeychainError(errSecNotAvailable) { try blocked.add(item) }
        expectKeychainError(errSecNotAvailable) { try blocked.search(exactQuery("s", "a", secrets: true)) }
        expectKeychainError(errSecNotAvailable) { try blocked.delete(exactQuery("s", "a", secrets: false)) }
    }

    @Test(arguments: [false, true])
    func updatesNeverHideTheItemFromReaders(byPrimaryKey: Bool) throws {
        let service = uniqueService("window")
        // The CLI's queries fix the whole primary key; Apple-style ones name service and account.
        let query = byPrimaryKey ? primaryKeyQuery : exactQuery
        try backend.add(genericItem(service, "a", Data("v0".utf8)))
        defer { _ = try? backend.delete(query(service, "a", false)) }
        let updates = 150
        let written = Set((0...updates).map { Data("v\($0)".utf8) })
        let finished = Flag()
        let problems = Problems()
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            do {
                if worker == 0 {
                    defer { finished.set() }
                    for round in 1...updates {
                        // Alternate secret changes with attribute-only changes.
                        let changes = round.isMultiple(of: 2)
                            ? ItemChanges(secret: SecretBytes(Data("v\(round)".utf8)))
                            : ItemChanges(attributes: ItemAttributes([.label: .string("round \(round)")]))
                        let changed = try backend.update(query(service, "a", false), with: changes)
                        if changed != 1 { problems.add("update \(round) changed \(changed) items") }
                    }
                } else {
                    var reads = 0
                    while !finished.isSet || reads == 0 {
                        reads += 1
                        let found = try backend.search(query(service, "a", true))
                        guard found.count == 1, let secret = found[0].secret?.makeData(), written.contains(secret) else {
                            problems.add("reader \(worker) read \(found.count) items on read \(reads)")
                            return
                        }
                    }
                }
            } catch {
                problems.add("worker \(worker): \(error)")
            }
        }
        #expect(problems.all.isEmpty, "\(problems.all)")
        #expect(try backend.search(query(service, "a", true)).first?.secret?.makeData() == Data("v\(updates)".utf8))
    }
}

final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

final class Problems: Sendable {
    private let entries = Locked<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
