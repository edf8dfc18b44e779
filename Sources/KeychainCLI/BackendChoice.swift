import FoundationEssentials
import Glibc
import KeychainCore
import KeychainEntryPoints
import KeychainBuiltInBackends

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
    ///
    /// The CLI is the operator's view: every access group, or the one `--group` names.
    /// Without `--backend`, the library's own resolution applies (`KEYCHAIN_BACKEND`, the pinned
    /// backend, the recorded choice, `auto`).
    static func operations(_ parsed: ParsedCommand) throws -> KeychainOperations {
        if selection(parsed) == MemoryBackend.backendName { throw memoryRefused }
        let scope = Placement.scope(group: parsed.value(.group))
        let operations = try parsed.backendName.map { try KeychainOperations.named($0, scope: scope) }
            ?? KeychainOperations.current(scope: scope)
        // A configuration file can pin `memory` too.
        if operations.backend.name == MemoryBackend.backendName { throw memoryRefused }
        return operations
    }

    private static let memoryRefused = KeychainError(errSecNotAvailable, "the 'memory' backend keeps secrets only inside one process, so the linux-keychain command would lose them when it exits; choose another backend ('linux-keychain backends' shows which work here)")
}
