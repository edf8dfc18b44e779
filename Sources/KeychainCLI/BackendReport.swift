import Foundation
import KeychainCore
import LinuxKeychain

/// `linux-keychain backends`: every registered backend, whether it is usable here and why not, and
/// what `auto` (or the current selection) resolves to. Exits `CLIStatus.unavailable` when no
/// backend the command can use is usable, so a script can test for a working store.
enum BackendReport {
    static func run(_ parsed: ParsedCommand) throws {
        let registry = KeychainBackendRegistry.withBuiltIns
        var lines: [String] = []
        var anyUsable = false
        let width = registry.names.map(\.count).max() ?? 8
        // One availability check per backend: a check can take a whole timeout.
        let survey = registry.survey()
        for (name, availability) in survey.backends {
            let refused = name == MemoryBackend.backendName
            let state = refused ? "refused    " : availability.isAvailable ? "usable     " : "not usable "
            var explanation = refused ? "keeps secrets only inside one process; programs may use it, this command may not"
                                      : availability.explanation
            if !refused, availability.isAvailable, let warning = VolatileStoreNotice.warning(forBackendNamed: name, in: registry) {
                explanation += "; \(warning)"
            }
            let automatic = registry.automaticNames.contains(name) || refused ? "" : " [never chosen by auto]"
            anyUsable = anyUsable || (availability.isAvailable && !refused)
            lines.append("\(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(state) \(explanation)\(automatic)")
        }
        switch survey.automaticChoice {
        case .success(let backend):
            let warning = backend.retention.warning.map { " (\($0); \(VolatileStoreNotice.howToKeepItems))" } ?? ""
            lines.append("auto picks: \(backend.name)\(warning)")
        case .failure(let error) where error.status == errSecInteractionNotAllowed:
            // A store that is there but locked is auto's answer all the same.
            lines.append("auto picks: \(error.backend ?? "?"), which is locked (\(error.message))")
        case .failure(let error): lines.append("auto picks: nothing (\(error.message))")
        }
        lines += Placement.effectiveChoice(selection: parsed.backendName, survey: survey)
        Terminal.write(lines.joined(separator: "\n") + "\n")
        if !anyUsable {
            throw KeychainError(errSecNotAvailable, "no backend is usable here; see the reasons above")
        }
    }
}
