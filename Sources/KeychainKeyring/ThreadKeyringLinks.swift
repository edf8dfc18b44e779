#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CKeyutils

/// The target keyrings the calling thread has looked up and linked into its process keyring, so that calls in quick
/// succession need neither look them up nor link them again (each is a kernel call as costly as reading a key). Kept
/// per thread, as the kernel keeps the process keyring (`CProcessKeyring`); a record is ignored in another process (a
/// `fork` child starts with a new process keyring) and under another effective user.
final class ThreadKeyringLinks {
    private struct Link {
        let keyring: ResolvedKeyring
        let process: pid_t
        let user: uid_t
        let lookedUpAt: Double

        var isStillOurs: Bool { process == CurrentProcess.id && user == geteuid() }
    }

    private var links: [KeyringChoice?: Link] = [:]

    /// The record of the calling thread.
    static var current: ThreadKeyringLinks { records.current(ThreadKeyringLinks.init) }

    private static let records = PerThreadObject<ThreadKeyringLinks>()

    /// The keyring this thread looked up (and linked) for `choice` within the last `maximumAge` seconds.
    func keyring(for choice: KeyringChoice?, lookedUpWithin maximumAge: Double) -> ResolvedKeyring? {
        guard let link = links[choice], link.isStillOurs, Self.now() - link.lookedUpAt < maximumAge else { return nil }
        return link.keyring
    }

    /// Whether this thread linked `serial` for `choice`, however long ago.
    func hasLinked(_ serial: key_serial_t, for choice: KeyringChoice?) -> Bool {
        guard let link = links[choice], link.isStillOurs else { return false }
        return link.keyring.serial == serial
    }

    /// Records that this thread just looked up `keyring` for `choice`, and has linked it.
    func recordLink(_ keyring: ResolvedKeyring, for choice: KeyringChoice?) {
        links[choice] = Link(keyring: keyring, process: CurrentProcess.id, user: geteuid(), lookedUpAt: Self.now())
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
