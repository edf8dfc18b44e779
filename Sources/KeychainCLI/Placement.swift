import Foundation
import KeychainCore
import LinuxKeychain

/// The CLI's part of placement: it is the operator's view of every access group, narrowed to
/// one by `--group`, and it sets and clears the user's pinned backend.
enum Placement {
    /// What the CLI's operations may see: every group by default, one with `--group`.
    static func scope(group: String?) -> AccessScope {
        group.map(AccessScope.group) ?? .everything
    }

    /// The one item (service, account) names for `get` and `delete`. With `--group`, the item
    /// in that group. Without it: the shared item if there is one (the one `keychain set`
    /// writes), else the only item of that name in any group; several in different groups
    /// and none shared is `errSecParam` naming the groups, so the operator picks one.
    static func item(_ service: String, _ account: String, group: String?,
                     in operations: KeychainOperations) throws -> PrimaryKey {
        var constraints = ItemAttributes([.service: .string(service), .account: .string(account)])
        constraints[.accessGroup] = .string(group ?? "")
        // The shared (or named) item first, by its exact primary key, which every backend
        // looks up directly; only without it is the name searched in every group.
        do {
            if let exact = try operations.search(ItemQuery(itemClass: .genericPassword, constraints: constraints, limit: .one)).first {
                return exact.primaryKey
            }
        } catch KeychainError.itemNotFound where group == nil {
            constraints[.accessGroup] = nil
        }
        let found = try operations.search(ItemQuery(itemClass: .genericPassword, constraints: constraints))
        if let shared = found.first(where: { ($0.attributes.string(.accessGroup) ?? "").isEmpty }) { return shared.primaryKey }
        guard found.count == 1 else {
            let groups = found.map { "'\($0.attributes.string(.accessGroup) ?? "")'" }.joined(separator: ", ")
            throw KeychainError.badParameter("service '\(service)' and account '\(account)' name items in the access groups \(groups); choose one with --group GROUP")
        }
        return found[0].primaryKey
    }

    /// `keychain pin NAME` and `keychain unpin`: the user's configuration file.
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
            if let recorded = placement.recordedBackend(), let path = placement.recordPath {
                text += "; auto uses '\(recorded)', recorded in \(path) (remove that file to choose afresh)"
            }
            Terminal.write(text + "\n")
        }
    }

    /// The lines `keychain backends` adds: the backend in effect and where it was chosen.
    static func effectiveChoice(selection: String?, survey: BackendSurvey) -> [String] {
        let registry = KeychainBackendRegistry.withBuiltIns
        if let selection { return ["in effect: \(selection) (from --backend)"] }
        do {
            let chosen = try registry.resolveSelection(reusing: survey)
            return ["in effect: \(chosen.backend.name) (\(chosen.source))"]
        } catch let error as KeychainError {
            return ["in effect: nothing usable (\(CLIStatus.describe(error)))"]
        } catch {
            return ["in effect: nothing usable"]
        }
    }
}
