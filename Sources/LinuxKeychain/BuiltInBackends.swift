import Foundation
import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import KeychainSecretService
import KeychainVault

/// Registers the backends that ship with the package, once per process, in `auto`'s order:
/// the Secret Service, then the kernel keyring, then the encrypted file. `vault` is never
/// automatic, because sending secrets off the machine must be a decision; `memory` is not
/// either, because it keeps nothing past the process.
enum BuiltInBackends {
    static let registered: Void = {
        let registry = KeychainBackendRegistry.shared
        registry.register(SecretServiceBackend.backendName, automaticRank: 10) { SecretServiceBackend() }
        registry.register("keyring", automaticRank: 20) {
            KernelKeyringBackend(environment: ProcessInfo.processInfo.environment)
        }
        registry.register(EncryptedFileBackend.backendName, automaticRank: 30) { EncryptedFileBackend() }
        registry.register(VaultBackend.backendName) { VaultBackend() }
        registry.register(MemoryBackend.backendName) { MemoryBackend() }
    }()

    /// Call before any use of the registry.
    static func ensureRegistered() { _ = registered }
}

extension KeychainBackendRegistry {
    /// The shared registry with the built-in backends registered.
    public static var withBuiltIns: KeychainBackendRegistry {
        BuiltInBackends.ensureRegistered()
        return .shared
    }
}
