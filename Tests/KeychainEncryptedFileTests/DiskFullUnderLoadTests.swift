import Foundation
@testable import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The file store's disk fills up while a thread pool uses it (#29 goal 6). The store lies on a
/// small tmpfs of its own, which a filler file fills and then frees again.
@Suite("file store whose disk fills under load")
struct DiskFullUnderLoadTests {
    /// Items written again and again by writers of their own, one each, so that the version
    /// each last saw acknowledged is known exactly.
    static let ledgerItems = 8

    @Test func callsFailWithDiskFullThenRecoverAndNoAcknowledgedWriteIsLost() throws {
        let disk = try SmallDisk()
        defer { disk.remove() }
        let backend = EncryptedFileBackend(settings: FileStoreSettings(
            directory: disk.path + "/store", passphrase: .given(SecretBytes(Data("disk-full-test".utf8))),
            cacheLifetime: 0, kdf: .minimum))
        let ledger = Ledger(backend: backend, items: Self.ledgerItems)
        try ledger.addAll()
        ledger.startWriters()

        // The workload runs while the disk fills, stays full for a while, and is freed again.
        let faulted = Locked<ThreadPoolWorkload.Result?>(nil)
        let workloadDone = DispatchSemaphore(value: 0)
        let workload = try ThreadPoolWorkload.ofThisRun()
        Thread.detachNewThread {
            faulted.withLock { $0 = workload.run(on: backend, service: "pool-faulted") }
            workloadDone.signal()
        }
        Thread.sleep(forTimeInterval: 0.1)
        try disk.fill()
        // Full until every ledger writer has been refused once (or 10 s have passed).
        let deadline = Date().addingTimeInterval(10)
        while ledger.writersRefused < Self.ledgerItems && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        disk.free()
        workloadDone.wait()
        let acknowledgedAfterTheFault = ledger.acknowledgedWrites
        // The ledger writers go on until they have had writes acknowledged after the fault.
        let recovery = Date().addingTimeInterval(30)
        while ledger.acknowledgedWrites < acknowledgedAfterTheFault + 2 * Self.ledgerItems && Date() < recovery {
            Thread.sleep(forTimeInterval: 0.02)
        }
        ledger.stopWriters()
        #expect(ledger.acknowledgedWrites >= acknowledgedAfterTheFault + 2 * Self.ledgerItems,
                "the ledger writers had no writes acknowledged within 30 s of the disk being freed")

        let during = try #require(faulted.withLock { $0 })
        let refusals = ledger.refusals + during.failures.filter { $0.status == errSecDiskFull }.map(\.detail)
        #expect(!refusals.isEmpty, "the full disk refused no call: the fault did not happen")
        print("disk full under load: \(refusals.count) writes refused; the workload meanwhile: \(during)")
        // A refusal says what happened and what to do; follow-ons of a refused write (a miss, a
        // previous secret read back) are answers, not errors.
        for message in Set(refusals) {
            #expect(message.contains("Free some space"), "a disk-full refusal said: \(message)")
            #expect(!message.contains("secret-"), "a refusal quotes a secret")
        }
        let otherStatuses = Set(during.failures.map(\.status)).subtracting([errSecDiskFull, errSecItemNotFound, errSecSuccess])
        #expect(otherStatuses.isEmpty, "the faulted run: \(during)")
        #expect(ledger.unexpected.isEmpty, "ledger writers: \(ledger.unexpected.prefix(5))")

        // Every write acknowledged before, during or after the fault is what is stored now.
        for item in 0..<Self.ledgerItems {
            let stored = try storedSecret(backend, "ledger", "item\(item)")
            #expect(stored == ledger.secret(item, ledger.acknowledged(item)),
                    "ledger item \(item) does not hold its last acknowledged version \(ledger.acknowledged(item))")
        }
        // The same backend, with nothing restarted, serves a whole workload again.
        let after = workload.run(on: backend, service: "pool-after")
        #expect(after.passed, "after the disk was freed: \(after)")
    }
}

/// Items each rewritten by a thread of its own, with the versions acknowledged.
private final class Ledger: Sendable {
    let backend: EncryptedFileBackend
    let items: Int
    private struct State {
        var acknowledged: [Int]
        var acknowledgedWrites = 0
        var refusedWriters: Set<Int> = []
        var refusals: [String] = []
        var unexpected: [String] = []
        var stop = false
        var running = 0
    }
    private let state: Locked<State>

    init(backend: EncryptedFileBackend, items: Int) {
        self.backend = backend
        self.items = items
        state = Locked(State(acknowledged: Array(repeating: 0, count: items)))
    }

    func secret(_ item: Int, _ version: Int) -> Data { Data("ledger-secret-\(item)-\(version)".utf8) }
    func acknowledged(_ item: Int) -> Int { state.withLock { $0.acknowledged[item] } }
    var acknowledgedWrites: Int { state.withLock { $0.acknowledgedWrites } }
    var writersRefused: Int { state.withLock { $0.refusedWriters.count } }
    var refusals: [String] { state.withLock { $0.refusals } }
    var unexpected: [String] { state.withLock { $0.unexpected } }

    func addAll() throws {
        for item in 0..<items { try backend.add(genericItem("ledger", "item\(item)", secret(item, 0))) }
    }

    func startWriters() {
        for item in 0..<items {
            state.withLock { $0.running += 1 }
            Thread.detachNewThread { [self] in
                var version = 0
                while !state.withLock({ $0.stop }) {
                    version += 1
                    do {
                        let changed = try backend.update(exactQuery("ledger", "item\(item)", secrets: false),
                                                         with: ItemChanges(secret: SecretBytes(secret(item, version))))
                        state.withLock {
                            if changed == 1 { $0.acknowledged[item] = version; $0.acknowledgedWrites += 1 }
                            else { $0.unexpected.append("item \(item): update changed \(changed) items") }
                        }
                    } catch let error as KeychainError where error.status == errSecDiskFull {
                        state.withLock { $0.refusedWriters.insert(item); $0.refusals.append(error.message) }
                    } catch {
                        state.withLock { $0.unexpected.append("item \(item): \(error)") }
                    }
                    Thread.sleep(forTimeInterval: 0.005)
                }
                state.withLock { $0.running -= 1 }
            }
        }
    }

    func stopWriters() {
        state.withLock { $0.stop = true }
        while state.withLock({ $0.running }) > 0 { Thread.sleep(forTimeInterval: 0.01) }
    }
}

/// A tmpfs of a few MiB, mounted in the run's own mount namespace (scripts/with-services.sh),
/// that `fill()` fills with a file and `free()` empties again.
private struct SmallDisk {
    let path: String
    var filler: String { path + "/filler" }

    init() throws {
        guard ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_IN_SERVICES"] == "1" else {
            try skipOrFail("mounts a small tmpfs: run inside scripts/with-services.sh, whose mount namespace is the run's own")
        }
        path = try makeScratchDirectory("lkc-small-disk").path
        guard mount("tmpfs", path, "tmpfs", 0, "size=8m,mode=0700") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            try skipOrFail("cannot mount a tmpfs for the full disk (\(reason)): needs root in the run's namespace")
        }
    }

    /// Writes the filler until the disk refuses a byte more.
    func fill() throws {
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0, "cannot create the filler: \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        try #require(errno == ENOSPC, "the filler stopped with \(String(cString: strerror(errno))), not ENOSPC")
    }

    func free() { unlink(filler) }

    func remove() {
        umount2(path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: path)
    }
}
