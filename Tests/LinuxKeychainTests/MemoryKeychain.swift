import Foundation
import KeychainCore
import LinuxKeychain

/// Points the process at the registry's own `memory` backend, as `KEYCHAIN_BACKEND=memory`
/// would. Tests run in parallel in one process, so every suite shares that one instance and
/// keeps apart by using its own service names (`uniqueName`).
enum MemoryKeychain {
    static func activate() {
        _ = activated
    }

    private static let activated: Void = {
        let registry = KeychainBackendRegistry.withBuiltIns
        if let memory = try? registry.backend(named: MemoryBackend.backendName) {
            registry.use(memory)
        }
    }()

    /// A service name no other test uses.
    static func uniqueName(_ prefix: String = "test") -> String {
        "\(prefix).\(UUID().uuidString)"
    }
}
