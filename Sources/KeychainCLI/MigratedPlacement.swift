import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// After a complete `linux-keychain migrate`, later runs must look for the items where they now are:
/// the placement that pointed at the source points at the target. A placement that names some
/// other store is left alone, since the move was not about it.
enum MigratedPlacement {
    /// Moves the pin or the record from `source` to `target` and returns lines for stderr
    /// saying what changed (or what the user still has to change). With nothing pinned or
    /// recorded, the target is recorded only if the source was the store in effect: a move
    /// between two other stores says nothing about where this user's items are.
    static func follow(from source: String, to target: String, sourceWasInEffect: Bool) throws -> [String] {
        guard let placement = KeychainBackendRegistry.withBuiltIns.placement else { return [] }
        var lines: [String] = []
        if placement.environment[KeychainBackendRegistry.selectionVariable] == source {
            lines.append("\(KeychainBackendRegistry.selectionVariable) still names '\(source)'; set it to '\(target)' to use the moved items")
        }
        let (user, system) = try placement.files()
        let automatic = KeychainBackendRegistry.automaticName
        if let pinned = user?.backend, pinned != automatic {
            guard pinned == source else { return lines }
            try placement.pin(target)
            return lines + ["pinned '\(target)' in \(placement.userFilePath ?? "the user's file") (it pinned '\(source)')"]
        }
        if let pinned = system?.backend, pinned != automatic {
            guard pinned == source else { return lines }
            // The machine's file is root's; the user's file comes before it.
            try placement.pin(target)
            return lines + ["pinned '\(target)' in \(placement.userFilePath ?? "the user's file"), which comes before the machine's pin of '\(source)' in \(system?.path ?? "")"]
        }
        let recorded = try? placement.recordedBackend()
        guard recorded == source || (recorded == nil && sourceWasInEffect) else { return lines }
        try placement.replaceRecord(with: target)
        return lines + ["recorded '\(target)' as this user's keychain backend in \(placement.recordPath ?? "")"]
    }
}
