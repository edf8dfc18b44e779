import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import KeychainCore

/// Which of the caller's keyrings holds the items (`KEYCHAIN_KEYRING`).
public enum KeyringChoice: String, CaseIterable, Sendable {
    /// The user's persistent keyring: shared by every process of the user, kept while unused
    /// for `/proc/sys/kernel/keys/persistent_keyring_expiry` seconds.
    case persistent
    /// The user keyring: shared by every process of the user while any of them runs.
    case user
    /// The session keyring: shared by the processes of one login session. The kernel keeps it
    /// per thread: a thread that has given itself a new session keyring (`add_key` on
    /// `KEY_SPEC_SESSION_KEYRING` in a process without one does) stores its items there.
    case session
}

/// A keyring the backend stores items in, resolved for the calling thread.
struct ResolvedKeyring: Sendable {
    let serial: key_serial_t
    let kind: KeyringChoice
    /// Why this is not the keyring that was asked for, if it is not.
    let note: String?

    /// For `linux-keychain backends`, e.g. "persistent keyring 123456 of uid 0".
    var detail: String {
        "\(kind.rawValue) keyring \(serial) of uid \(getuid())" + (note.map { " (\($0))" } ?? "")
    }
}

extension KernelKeys {
    /// Finds the keyring for `choice` (nil: persistent, else the user keyring where the kernel has no persistent
    /// keyrings) and links it into the process keyring, which makes the process possess it whatever session it runs in
    /// (cron, systemd). With `reusingLinks`, a thread looks the user or session keyring up, and links
    /// the persistent one (which also restarts its expiry timer), at most once per `lookupInterval`
    /// (`ThreadKeyringLinks`); a change of effective user takes effect at once. docs/keyring.md ("Which keyring") gives
    /// the consequences.
    func resolve(_ choice: KeyringChoice?, reusingLinks: Bool = true) throws -> ResolvedKeyring {
        let links = ThreadKeyringLinks.current
        if reusingLinks, let recent = links.keyring(for: choice, lookedUpWithin: Self.lookupInterval) {
            return recent
        }
        switch choice {
        case .user?:
            return try resolveLinked(KEY_SPEC_USER_KEYRING, kind: .user, for: choice, in: links, reusingLinks)
        case .session?:
            return try resolveLinked(KEY_SPEC_SESSION_KEYRING, kind: .session, for: choice, in: links, reusingLinks)
        case .persistent?, nil:
            let resolved = try resolvePersistent(fallingBackToUserKeyring: choice == nil)
            links.recordLink(resolved, for: choice)
            return resolved
        }
    }

    /// Seconds after which a thread looks its keyring up again (and links the persistent keyring again).
    static let lookupInterval = 1.0

    private func resolvePersistent(fallingBackToUserKeyring fallBack: Bool) throws -> ResolvedKeyring {
        do {
            return ResolvedKeyring(serial: try persistentKeyringLinkedIntoProcess(), kind: .persistent, note: nil)
        } catch let failure as KeyctlFailure where failure.errno == .notSupported {
            guard fallBack else {
                throw KeychainError.keyring(errSecNotAvailable,
                    "KEYCHAIN_KEYRING=persistent, but this kernel has no persistent keyrings (CONFIG_PERSISTENT_KEYRINGS is off). Set KEYCHAIN_KEYRING=user.",
                    failedCall: failure.call)
            }
            let serial = try serial(of: KEY_SPEC_USER_KEYRING, create: true)
            try link(serial, into: Self.processKeyring)
            return ResolvedKeyring(serial: serial, kind: .user, note: "this kernel has no persistent keyrings")
        }
    }

    private func resolveLinked(_ special: key_serial_t, kind: KeyringChoice, for choice: KeyringChoice?,
                               in links: ThreadKeyringLinks, _ reusingLinks: Bool) throws -> ResolvedKeyring {
        // No "create" for the session keyring: that would give this thread a new, empty
        // session keyring that no other process shares.
        let resolved = ResolvedKeyring(serial: try serial(of: special, create: kind == .user), kind: kind, note: nil)
        if !reusingLinks || !links.hasLinked(resolved.serial, for: choice) {
            try link(resolved.serial, into: Self.processKeyring)
        }
        // Also when it was linked already: the record's time is that of the last lookup.
        links.recordLink(resolved, for: choice)
        return resolved
    }
}
