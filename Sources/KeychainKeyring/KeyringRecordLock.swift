import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls

/// A lock on one target keyring, shared by every process that possesses the target, built from
/// kernel keys alone, which a holder that dies cannot leave taken. Writers of the records take
/// it around their read-modify-write: the kernel has no compare-and-swap.
///
/// Held exactly while the target `T` holds the `user` key `linux-keychain:lock:T`. A process has one lock key per target
/// (`ProcessLockKeys`), kept in its process keyring and naming it; its threads take turns, and the one whose turn it is
/// moves the key in exclusively and back. A waiter that finds the holder's process keyring gone invalidates that key
/// (`takeFromDeadHolder`). See docs/keyring.md#the-record-lock. The body must not take a record lock; if the lock was
/// taken from the thread meanwhile, `withLock` throws `errSecIO` instead of the body's result.
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

    /// Runs `body` holding the lock on `target`, which the calling thread must possess. The process's threads queue in
    /// order (`FIFOGate`), one line for every target, as only the thread whose turn it is may stage keys in the process
    /// keyring (`stageUserKey`); `timeout` counts from a thread's turn.
    func withLock<Result>(in target: key_serial_t, _ body: () throws -> Result) throws -> Result {
        try Self.turns.withTurn(stalledAfter: timeout * 2 / .seconds(1), orThrow: { timeoutError(target) }) {
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
        let deadline = ContinuousClock.now + timeout
        var pause = Self.firstPause
        var madeNewKey = false
        while true {
            let key = try ProcessLockKeys.key(for: target) ?? makeLockKey(for: target)
            do {
                try kernel.move(key, from: KernelKeys.processKeyring, to: target, exclusive: true)
                return key
            } catch Errno.fileExists {
                invalidateIfHolderIsDead(in: target)
            } catch let failure as KeyctlFailure where !madeNewKey && [.noSuchKey, .noSuchFileOrDirectory].contains(failure.errno) {
                // The key is gone (invalidated by a waiter that judged this process dead) or not in this thread's
                // process keyring (a thread older than the library has one of its own): make another, once. A second
                // failure is the target's own.
                ProcessLockKeys.forget(target)
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

    private static let turns = FIFOGate()
    private static let firstPause = Duration.microseconds(20)
    private static let longestPause = Duration.milliseconds(1)

    /// Creates the process's lock key for `target` in the process keyring; writable, so that making it again where it is
    /// (`acquire`) updates it in place.
    private func makeLockKey(for target: key_serial_t) throws -> key_serial_t {
        do {
            let holder = try kernel.processKeyringSerial()
            let key = try Data(String(holder).utf8).withUnsafeBytes { try kernel.stageUserKey(Self.lockDescription(target), payload: $0) }
            ProcessLockKeys.record(key, for: target)
            return key
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("making the record lock key of keyring \(target)")
        }
    }

    /// Invalidates the lock key in `target` when its holder process is gone. Any doubt counts as a live holder.
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

    /// Whether the keyring a lock key names is gone: the kernel drops a process keyring once its process has ended and
    /// been reaped. `_tid` is a thread keyring, which held the lock keys of earlier releases.
    private func holderIsGone(_ holderKeyring: key_serial_t) -> Bool {
        do {
            let record = try kernel.describe(holderKeyring)
            return record.type != "keyring" || !["_pid", "_tid"].contains(record.description)
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
            try kernel.move(key, from: target, to: KernelKeys.processKeyring, exclusive: false)
        } catch let failure as KeyctlFailure {
            ProcessLockKeys.forget(target)
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

/// The lock keys this process has made, by target keyring. A record made in another process (before a `fork`, whose
/// child starts with a new process keyring) or under another effective user is not used.
private enum ProcessLockKeys {
    private struct Record { let key: key_serial_t, process: pid_t, user: uid_t }

    private static let records = Locked<[key_serial_t: Record]>([:])

    static func key(for target: key_serial_t) -> key_serial_t? {
        guard let record = records.withLock({ $0[target] }), record.process == CurrentProcess.id, record.user == geteuid() else { return nil }
        return record.key
    }

    static func record(_ key: key_serial_t, for target: key_serial_t) {
        records.withLock { $0[target] = Record(key: key, process: CurrentProcess.id, user: geteuid()) }
    }

    static func forget(_ target: key_serial_t) { records.withLock { $0[target] = nil } }
}
