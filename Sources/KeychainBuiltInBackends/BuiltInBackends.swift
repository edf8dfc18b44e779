import FoundationEssentials
import Glibc
public import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import KeychainSecretService
import KeychainVault

/// Registers the backends that ship with the package, once per process, in `auto`'s order:
/// the Secret Service, then the encrypted file, then the kernel keyring. The file comes before
/// the keyring because it survives a reboot; where its passphrase would be asked on a terminal
/// (`unlockNeedsPrompt`), `auto` tries it after the keyring instead. `vault` is never
/// automatic, because sending secrets off the machine must be a decision; `memory` is not
/// either, because it keeps nothing past the process.
///
/// Each is registered with `registerDefault`, so a backend the program registered under the
/// same name, before or after this runs, is the one used. Each reads its settings from the
/// environment over the configuration files (`BackendPlacement.effectiveEnvironment`).
package enum BuiltInBackends {
    private static let registered: Void = {
        let registry = KeychainBackendRegistry.shared
        let settings: @Sendable () -> [String: String] = {
            registry.placement?.effectiveEnvironment ?? ProcessInfo.processInfo.environment
        }
        registry.registerDefault(SecretServiceBackend.backendName, automaticRank: 10) {
            SecretServiceBackend(settings: SecretServiceSettings(environment: settings()))
        }
        registry.registerDefault(EncryptedFileBackend.backendName, automaticRank: 20) {
            EncryptedFileBackend(environment: settings())
        }
        registry.registerDefault("keyring", automaticRank: 30) { KernelKeyringBackend(environment: settings()) }
        registry.registerDefault(VaultBackend.backendName) { VaultBackend(environment: settings()) }
        registry.registerDefault(MemoryBackend.backendName) { MemoryBackend() }
    }()

    /// Call before any use of the registry.
    package static func ensureRegistered() { _ = registered }
}

extension KeychainBackendRegistry {
    /// The shared registry with the built-in backends registered.
    public static var withBuiltIns: KeychainBackendRegistry {
        BuiltInBackends.ensureRegistered()
        return .shared
    }
}
