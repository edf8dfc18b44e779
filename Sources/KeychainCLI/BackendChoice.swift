import Foundation
import KeychainCore
import LinuxKeychain

/// Which store a command works on: `--backend`, else `KEYCHAIN_BACKEND`, else `auto`.
enum BackendChoice {
    /// The selection in effect, by name.
    static func selection(_ parsed: ParsedCommand) -> String {
        if let name = parsed.backendName { return name }
        let variable = ProcessInfo.processInfo.environment[KeychainBackendRegistry.selectionVariable] ?? ""
        return variable.isEmpty ? KeychainBackendRegistry.automaticName : variable
    }

    /// Operations on the selected backend, which must be usable here. The `memory` backend is
    /// refused: it would forget every secret when this process exits, so a `set` through it
    /// would report success for nothing.
    static func operations(_ parsed: ParsedCommand) throws -> KeychainOperations {
        let name = selection(parsed)
        if name == MemoryBackend.backendName {
            throw KeychainError(errSecNotAvailable, "the 'memory' backend keeps secrets only inside one process, so the keychain command would lose them when it exits; choose another backend ('keychain backends' shows which work here)")
        }
        return try KeychainOperations.named(name)
    }
}
