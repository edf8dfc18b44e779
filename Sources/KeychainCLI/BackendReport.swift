import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// `linux-keychain backends`: every registered backend, whether it is usable here and why not, and
/// what `auto` (or the current selection) resolves to; a table, or with `--json` one object
/// (its fields are in `linux-keychain help backends`). Exits `CLIStatus.unavailable` when no
/// backend the command can use is usable, so a script can test for a working store.
struct BackendReport {
    struct Backend {
        let name: String
        /// "usable", "not usable" or "refused" (memory, which the command never uses).
        let state: String
        let usable: Bool
        let explanation: String
        /// For a usable store that loses its items at reboot: what happens and how to avoid it.
        let warning: String?
        let chosenByAuto: Bool
    }

    /// What `auto` picks: a backend (perhaps locked), or nothing, and why.
    struct AutomaticChoice {
        let backend: String?
        let locked: Bool
        let explanation: String?
    }

    let backends: [Backend]
    let automatic: AutomaticChoice
    let inEffect: Placement.EffectiveChoice

    static func run(_ parsed: ParsedCommand) throws {
        let report = BackendReport(selection: parsed.backendName)
        Terminal.write(parsed.has(.json) ? report.json : report.table)
        if !report.backends.contains(where: \.usable) {
            throw KeychainError(errSecNotAvailable, "no backend is usable here; see the reasons above")
        }
    }

    init(selection: String?) {
        let registry = KeychainBackendRegistry.withBuiltIns
        // One availability check per backend: a check can take a whole timeout.
        let survey = registry.survey()
        backends = survey.backends.map { name, availability in
            let refused = name == MemoryBackend.backendName
            let usable = availability.isAvailable && !refused
            return Backend(name: name, state: refused ? "refused" : availability.isAvailable ? "usable" : "not usable", usable: usable,
                           explanation: refused ? "keeps secrets only inside one process; programs may use it, this command may not"
                                                : availability.explanation,
                           warning: usable ? VolatileStoreNotice.warning(forBackendNamed: name, in: registry) : nil,
                           chosenByAuto: registry.automaticNames.contains(name))
        }
        switch survey.automaticChoice {
        case .success(let backend):
            automatic = AutomaticChoice(backend: backend.name, locked: false, explanation: backend.retention.warning)
        case .failure(let error) where error.status == errSecInteractionNotAllowed:
            // A store that is there but locked is auto's answer all the same.
            automatic = AutomaticChoice(backend: error.backend ?? "?", locked: true, explanation: error.message)
        case .failure(let error):
            automatic = AutomaticChoice(backend: nil, locked: false, explanation: error.message)
        }
        inEffect = Placement.effectiveChoice(selection: selection, survey: survey)
    }

    var table: String {
        let width = backends.map(\.name.count).max() ?? 8
        var lines = backends.map { backend in
            let refused = backend.state == "refused"
            let explanation = backend.explanation + (backend.warning.map { "; \($0)" } ?? "")
            let automatic = backend.chosenByAuto || refused ? "" : " [never chosen by auto]"
            return "\(backend.name.padded(to: width))  "
                + "\(backend.state.padded(to: 11)) \(explanation)\(automatic)"
        }
        switch (automatic.backend, automatic.locked) {
        case (let name?, true): lines.append("auto picks: \(name), which is locked (\(automatic.explanation ?? ""))")
        case (let name?, false):
            let warning = automatic.explanation.map { " (\($0); \(VolatileStoreNotice.howToKeepItems))" } ?? ""
            lines.append("auto picks: \(name)\(warning)")
        case (nil, _): lines.append("auto picks: nothing (\(automatic.explanation ?? ""))")
        }
        lines.append(inEffect.line)
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        let object: [String: JSONValue] = [
            "backends": .array(backends.map { backend in
                var fields: [String: JSONValue] = ["name": .string(backend.name), "state": .string(backend.state),
                                                   "usable": .bool(backend.usable), "explanation": .string(backend.explanation),
                                                   "chosen-by-auto": .bool(backend.chosenByAuto)]
                if let warning = backend.warning { fields["warning"] = .string(warning) }
                return .object(fields)
            }),
            "auto": .object(["backend": optional(automatic.backend), "locked": .bool(automatic.locked),
                             "explanation": optional(automatic.explanation)]),
            "in-effect": .object(["backend": optional(inEffect.backend), "source": optional(inEffect.source),
                                  "explanation": optional(inEffect.explanation)]),
        ]
        return JSONValue.object(object).prettyText + "\n"
    }
}
