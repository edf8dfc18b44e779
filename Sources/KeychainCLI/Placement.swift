import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// The CLI's part of placement: it is the operator's view of every access group, narrowed to
/// one by `--group`, and it sets and clears the user's pinned backend. Which item a name means
/// when several groups hold one is `ItemName.onlyItem`'s rule.
enum Placement {
    /// What the CLI's operations may see: every group by default, one with `--group`.
    static func scope(group: String?) -> AccessScope {
        group.map(AccessScope.group) ?? .everything
    }

    /// `linux-keychain pin NAME` and `linux-keychain unpin`: the user's configuration file.
    static func pin(_ name: String?) throws {
        guard let placement = KeychainBackendRegistry.withBuiltIns.placement else { return }
        if let name, name != KeychainBackendRegistry.automaticName {
            // Refuses an unknown name before writing it where every later run would trip on it.
            _ = try KeychainBackendRegistry.withBuiltIns.backend(named: name)
            try placement.pin(name)
            Terminal.write("pinned backend '\(name)' in \(placement.userFilePath ?? "")\n")
        } else {
            try placement.pin(nil)
            var text = "no backend pinned in \(placement.userFilePath ?? "")"
            if let recorded = try? placement.recordedBackend(), let path = placement.recordPath {
                text += "; auto uses '\(recorded)', recorded in \(path) (remove that file to choose afresh)"
            }
            Terminal.write(text + "\n")
        }
    }

    /// The backend in effect and where it was chosen, or why there is none.
    struct EffectiveChoice {
        let backend: String?
        /// Where it was chosen: "from --backend", "pinned in ...", "automatic: ...".
        let source: String?
        /// Why nothing is usable, when `backend` is nil.
        let explanation: String?

        /// The line `linux-keychain backends` ends with.
        var line: String {
            if let backend { return "in effect: \(backend) (\(source ?? ""))" }
            return "in effect: nothing usable" + (explanation.map { " (\($0))" } ?? "")
        }
    }

    /// What `linux-keychain backends` reports as in effect.
    static func effectiveChoice(selection: String?, survey: BackendSurvey) -> EffectiveChoice {
        let registry = KeychainBackendRegistry.withBuiltIns
        if let selection, selection != KeychainBackendRegistry.automaticName {
            return EffectiveChoice(backend: selection, source: "from --backend", explanation: nil)
        }
        do {
            let chosen = try selection == nil ? registry.resolveSelection(reusing: survey)
                                              : registry.automaticSelection()
            return EffectiveChoice(backend: chosen.backend.name, source: "\(chosen.source)", explanation: nil)
        } catch let error as KeychainError {
            return EffectiveChoice(backend: nil, source: nil, explanation: CLIStatus.describe(error))
        } catch {
            return EffectiveChoice(backend: nil, source: nil, explanation: nil)
        }
    }
}
