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
        for name in registry.names {
            guard let backend = try? registry.backend(named: name) else { continue }
            let availability = backend.availability()
            let state = availability.isAvailable ? "usable     " : "not usable "
            let automatic = registry.automaticNames.contains(name) ? "" : " [never chosen by auto]"
            lines.append("\(name.padding(toLength: width, withPad: " ", startingAt: 0))  \(state) \(availability.explanation)\(automatic)")
        }
        switch registry.automaticChoice() {
        case .success(let backend): lines.append("auto picks: \(backend.name)")
        case .failure(let error): lines.append("auto picks: nothing (\(error.message))")
        }
        if let selection {
            lines.append("--backend selects: \(selection)")
        } else if let variable = ProcessInfo.processInfo.environment[KeychainBackendRegistry.selectionVariable], !variable.isEmpty {
            lines.append("\(KeychainBackendRegistry.selectionVariable) selects: \(variable)")
        }
        Terminal.write(lines.joined(separator: "\n") + "\n")
    }
}
