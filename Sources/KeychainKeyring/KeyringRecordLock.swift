import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore
import KeychainSystemCalls

/// A lock on one target keyring, shared by every thread of every process that possesses the
/// target, built from kernel keys alone, which a holder that dies cannot leave taken. Writers
/// of the records take it around their read-modify-write: the kernel has no compare-and-swap.
///
/// Held exactly while the target `T` holds the `user` key `linux-keychain:lock:T`; each thread moves its own lock key
/// (`ThreadLockKeys`) in exclusively and back, and a waiter that finds the holder's thread keyring gone invalidates
/// that key (`takeFromDeadHolder`). See docs/keyring.md#the-record-lock. The body must not take the same lock again; if
/// the lock was taken from the thread meanwhile, `withLock` throws `errSecIO` instead of the body's result.
struct KeyringRecordLock: Sendable {
    let kernel: KernelKeys
    /// How long `withLock` waits for a live holder.
    let timeout: Duration

    /// Five seconds: a record write holds the lock for a few kernel calls, and a dead holder
    /// is noticed within a fraction of a second, so only a holder that is stopped (^Z,
    /// SIGSTOP, a debugger) or whose zombie is not reaped keeps the others waiting that long.
    static let defaultTimeout = Duration.seconds(5)

    init(kernel: KernelKeys, timeout: Duration = defaultTimeout) {
        self.kernel = kernel
        self.timeout = timeout
    }

    /// The description of the lock keys of `target`.
    static func lockDescription(_ target: key_serial_t) -> String { "linux-keychain:lock:\(target)" }

    /// Runs `body` holding the lock on `target`, which the calling thread must possess. The
    /// process's threads queue in order (`FIFOGate`), and `timeout` counts from a thread's turn.
    func withLock<Result>(in target: key_serial_t, _ body: () throws -> Result) throws -> Result {
        try Self.turns.gate(for: target).withTurn(stalledAfter: timeout * 2 / .seconds(1), orThrow: { timeoutError(target) }) {
            let key = try acquire(target)
            var released = false
            defer { if !released { try? release(key, from: target) } }
            let result = try body()
            released = true
            try release(key, from: target)
            return result
        }
    }

    // MARK: - Taking the lock

    private func acquire(_ target: key_serial_t) throws -> key_serial_t {
        let keys = ThreadLockKeys.current
        let deadline = ContinuousClock.now + timeout
        var pause = Self.firstPause
        var madeNewKey = false
        while true {
            let key = try keys.keys[target] ?? makeLockKey(for: target, recordingIn: keys)
            do {
                try kernel.move(key, from: KernelKeys.threadKeyring, to: target, exclusive: true)
                return key
            } catch Errno.fileExists {
                invalidateIfHolderIsDead(in: target)
            } catch let failure as KeyctlFailure where !madeNewKey && [.noSuchKey, .noSuchFileOrDirectory].contains(failure.errno) {
                // The key is gone (invalidated by a waiter that judged this thread dead) or no longer in the thread
                // keyring: make another, once. A second failure is the target's own.
                keys.keys[target] = nil
                madeNewKey = true
                continue
            } catch let failure as KeyctlFailure {
                throw failure.keychainError("taking the record lock of keyring \(target)")
            }
            let now = ContinuousClock.now
            guard now < deadline else { throw timeoutError(target) }
            usleep(useconds_t(min(pause, deadline - now) / .microseconds(1)))
            pause = min(pause * 2, Self.longestPause)
        }
    }

    private static let turns = FIFOGates<key_serial_t>()
    private static let firstPause = Duration.microseconds(20)
    private static let longestPause = Duration.milliseconds(1)

    /// Creates the calling thread's lock key for `target` in its thread keyring.
    private func makeLockKey(for target: key_serial_t, recordingIn keys: ThreadLockKeys) throws -> key_serial_t {
        do {
            let holder = try kernel.threadKeyringSerial()
            let key = try Data(String(holder).utf8).withUnsafeBytes {
                try kernel.stageUserKey(Self.lockDescription(target), payload: $0, permissions: KernelKeys.readOnlyPermissions)
            }
            keys.keys[target] = key
            return key
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("making the record lock key of keyring \(target)")
        }
    }

    /// Invalidates the lock key in `target` when its holder thread is gone. Any doubt counts as a live holder.
    private func invalidateIfHolderIsDead(in target: key_serial_t) {
        guard let held = try? kernel.search(target, type: "user", description: Self.lockDescription(target)),
              let payload = try? kernel.readPublicPayload(held),
              let holder = key_serial_t(String(decoding: payload, as: UTF8.self)), holder > 0,
              holderIsGone(holder) else { return }
        takeFromDeadHolder(held)
    }

    /// Frees the lock from `held`, the lock key of a holder found dead, by invalidating that key: by the time this
    /// runs, another waiter may have freed it already and a live thread taken the lock with its own key, which must
    /// stay. Unlinking `held` from the target would remove that key instead, whenever `held` still exists (the kernel
    /// unlinks by type and description). Failing changes nothing: the next try looks again.
    func takeFromDeadHolder(_ held: key_serial_t) {
        try? kernel.invalidate(held)
    }

    private func holderIsGone(_ threadKeyring: key_serial_t) -> Bool {
        do {
            let record = try kernel.describe(threadKeyring)
            return record.type != "keyring" || record.description != "_tid"
        } catch let failure as KeyctlFailure {
            return failure.isNoSuchKey || failure.errno == .keyRevoked || failure.errno == .keyExpired
        } catch {
            return false
        }
    }

    private func timeoutError(_ target: key_serial_t) -> KeychainError {
        let seconds = timeout / .seconds(1)
        let secondsText = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return KeychainError.keyring(errSecIO,
            "Another process or thread has held the record lock of keyring \(target) (the kernel key '\(Self.lockDescription(target))') for \(secondsText) s, so this write gave up waiting for it. A process stopped while it writes (^Z, SIGSTOP, a debugger) keeps it: resume it or end it. A holder that has ended frees it by itself once it is reaped.")
    }

    // MARK: - Letting go

    private func release(_ key: key_serial_t, from target: key_serial_t) throws {
        do {
            try kernel.move(key, from: target, to: KernelKeys.threadKeyring, exclusive: false)
        } catch let failure as KeyctlFailure {
            ThreadLockKeys.current.keys[target] = nil
            // A key taken away may also fail with EACCES: it exists until the kernel has
            // dropped its last link, but nothing this thread possesses holds it any more.
            let lost = failure.isNoSuchKey || failure.errno == .keyRevoked || failure.errno == .keyExpired
                || !kernel.isLinked(key, in: target)
            if lost {
                throw KeychainError.keyring(errSecIO,
                    "The record lock of keyring \(target) (the kernel key '\(Self.lockDescription(target))') was taken from this thread while it held it, so what it wrote may have raced another writer; read the items again before relying on them.",
                    failedCall: failure.call)
            }
            // Still held, and could not be moved back: invalidating it lets the others in.
            do {
                try kernel.invalidate(key)
            } catch {
                throw failure.keychainError("letting go of the record lock of keyring \(target)")
            }
        }
    }
}

/// The lock keys the calling thread has made, by target keyring. Each thread has its own, as
/// it has its own thread keyring; a record made in another process (before a `fork`, whose
/// child starts without a thread keyring) or under another effective user is not used.
private final class ThreadLockKeys {
    var keys: [key_serial_t: key_serial_t] = [:]
    private let process = CurrentProcess.id
    private let user = geteuid()

    static var current: ThreadLockKeys { records.current(ThreadLockKeys.init) { $0.process == CurrentProcess.id && $0.user == geteuid() } }

    private static let records = PerThreadObject<ThreadLockKeys>()
}
