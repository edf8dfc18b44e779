import Foundation
import KeychainCore
import LinuxKeychain

/// `keychain backends`: every registered backend, whether it is usable here and why not, and
/// what `auto` (or the current selection) resolves to.
enum BackendReport {
    static func print(selection: String?) {
        let registry = KeychainBackendRegistry.withBuiltIns
        var lines: [String] = []
        let width = registry.names.map(\.count).max() ?? 8
        // One availability check per backend: a check can take a whole timeout.
        let survey = registry.survey()
        for (name, availability) in survey.backends {
            let state = availability.isAvailable ? "usable     " : "not usable "
            let automatic = registry.automaticNames.contains(name) ? "" : " [never chosen by auto]"
            lines.append("\(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(state) \(availability.explanation)\(automatic)")
        }
        switch survey.automaticChoice {
        case .success(let backend): lines.append("auto picks: \(backend.name)")
        case .failure(let error) where error.status == errSecInteractionNotAllowed:
            // A store that is there but locked is auto's answer all the same.
            lines.append("auto picks: \(error.backend ?? "?"), which is locked (\(error.message))")
        case .failure(let error): lines.append("auto picks: nothing (\(error.message))")
        }
        lines += Placement.effectiveChoice(selection: selection, survey: survey)
        Terminal.write(lines.joined(separator: "\n") + "\n")
    }
}
