import KeychainCore
import KeychainBuiltInBackends

/// What the CLI says when a store loses its items at reboot: on its line of `linux-keychain backends`,
/// and once on stderr at the `linux-keychain set` that records `auto`'s choice of it. The library
/// itself prints nothing; it only exposes `KeychainBackend.retention`.
enum VolatileStoreNotice {
    /// How to get a store that survives a reboot, for a user who has none configured.
    static let howToKeepItems = "to keep secrets across reboots, give the file store a passphrase without a prompt (KEYCHAIN_FILE_PASSPHRASE_FILE, or the systemd credential keychain-passphrase)"

    /// The warning for the backend registered as `name`, or nil when it is durable.
    static func warning(forBackendNamed name: String, in registry: KeychainBackendRegistry) -> String? {
        (try? registry.backend(named: name))?.retention.warning
    }

    /// The one line for the write that just recorded `backend` as this user's store, or nil when
    /// that store is durable. The record is kept from then on, so the way out is a pin.
    static func afterRecording(_ backend: any KeychainBackend) -> String? {
        guard let warning = backend.retention.warning else { return nil }
        return "stored in '\(backend.name)', \(warning); this user's items now go there. \(capitalized(howToKeepItems)) and run `linux-keychain pin file`"
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
