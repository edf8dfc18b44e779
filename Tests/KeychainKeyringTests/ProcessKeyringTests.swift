import CKeyutils
import CProcessKeyring
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import Testing

/// The process keyring that the backend stages in and keeps its lock keys in (`CProcessKeyring`):
/// made at load time, so that every thread has the same one, and new in a fork child.
@Suite("kernel keyring: the process keyring")
struct ProcessKeyringTests {
    let kernel = KernelKeys()

    @Test func threadsStartedAfterLoadShareTheOneMadeAtLoad() throws {
        let made = cprocesskeyring_serial_at_load()
        try #require(made > 0, "no process keyring was made at load: \(made)")
        let seen = Locked<[key_serial_t]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            // Without creating one: a thread that had none would fail here.
            let serial = keyctl_get_keyring_ID(KEY_SPEC_PROCESS_KEYRING, 0)
            seen.withLock { $0.append(serial) }
        }
        #expect(seen.withLock { $0 } == Array(repeating: made, count: 8))
    }

    @Test func aForkedChildGetsANewOneOfItsOwn() throws {
        let parent = cprocesskeyring_serial_at_load()
        try #require(parent > 0)
        let child = fork()
        if child == 0 {
            // Only the fork handler's value and one system call between fork and _exit.
            let made = cprocesskeyring_serial_at_load()
            _exit(made > 0 && made != parent && keyctl_get_keyring_ID(KEY_SPEC_PROCESS_KEYRING, 0) == made ? 0 : 1)
        }
        try #require(child > 0)
        var status: Int32 = 0
        #expect(waitpid(child, &status, 0) == child)
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0, "the child's process keyring: status \(status)")
    }

    /// Thread count costs no keys: 16 threads writing into one target leave the process one
    /// lock key for it, in the process keyring, where each thread used to keep its own.
    @Test func threadsWritingIntoOneTargetShareOneLockKey() throws {
        let (target, backend, remove) = try kernel.ownKeyring("shared-lock")
        defer { remove() }
        let service = uniqueService("shared-lock")
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                try backend.add(genericItem(service, "t\(index)", Data("s\(index)".utf8)))
                _ = try backend.delete(primaryKeyQuery(service, "t\(index)", secrets: false))
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let lockKeys = try kernel.contents(of: KernelKeys.processKeyring).filter {
            (try? kernel.describe($0).description) == KeyringRecordLock.lockDescription(target)
        }
        #expect(lockKeys.count == 1, "lock keys for keyring \(target) in the process keyring: \(lockKeys)")
    }
}
