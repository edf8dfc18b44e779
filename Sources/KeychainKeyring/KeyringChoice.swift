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
    /// The session keyring: shared by the processes of one login session.
    case session
}

/// A keyring the backend stores items in, resolved for the calling thread.
struct ResolvedKeyring: Sendable {
    let serial: key_serial_t
    let kind: KeyringChoice
    /// Why this is not the keyring that was asked for, if it is not.
    let note: String?

    /// For `keychain backends`, e.g. "persistent keyring 123456 of uid 0".
    var detail: String {
        "\(kind.rawValue) keyring \(serial) of uid \(getuid())" + (note.map { " (\($0))" } ?? "")
    }
}

extension KernelKeys {
    /// Finds the keyring for `choice` (nil: persistent, else the user keyring where the kernel
    /// has no persistent keyrings) and links it into this thread's keyring.
    ///
    /// The link makes the thread possess the keyring, so the possessor permissions of the keys
    /// under it apply, whatever session the process runs in (cron, systemd). It is redone on
    /// every operation because operations run on whatever thread calls them and because
    /// `keyctl_get_persistent` restarts the persistent keyring's expiry timer.
    func resolve(_ choice: KeyringChoice?) throws -> ResolvedKeyring {
        switch choice {
        case .persistent?:
            do {
                return ResolvedKeyring(serial: try persistentKeyringLinkedIntoThread(), kind: .persistent, note: nil)
            } catch let failure as KeyctlFailure where failure.code == EOPNOTSUPP {
                throw KeychainError.keyring(errSecNotAvailable,
                    "KEYCHAIN_KEYRING=persistent, but this kernel has no persistent keyrings (CONFIG_PERSISTENT_KEYRINGS is off). Set KEYCHAIN_KEYRING=user.",
                    failedCall: failure.call)
            }
        case nil:
            do {
                return ResolvedKeyring(serial: try persistentKeyringLinkedIntoThread(), kind: .persistent, note: nil)
            } catch let failure as KeyctlFailure where failure.code == EOPNOTSUPP {
                return try resolveLinked(KEY_SPEC_USER_KEYRING, kind: .user,
                                         note: "this kernel has no persistent keyrings")
            }
        case .user?:
            return try resolveLinked(KEY_SPEC_USER_KEYRING, kind: .user, note: nil)
        case .session?:
            return try resolveLinked(KEY_SPEC_SESSION_KEYRING, kind: .session, note: nil)
        }
    }

    private func resolveLinked(_ special: key_serial_t, kind: KeyringChoice, note: String?) throws -> ResolvedKeyring {
        // No "create" for the session keyring: that would give this thread a new, empty
        // session keyring that no other process shares.
        let serial = try serial(of: special, create: kind == .user)
        try link(serial, into: Self.threadKeyring)
        return ResolvedKeyring(serial: serial, kind: kind, note: note)
    }
}
