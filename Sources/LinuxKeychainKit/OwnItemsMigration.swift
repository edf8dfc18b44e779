public import KeychainCore
import LinuxKeychain

extension ItemMigration {
    /// A move of this program's own items only: those of its access group (`accessGroup`, by
    /// default the first of `KeychainProgramIdentity.accessGroups`), never another program's
    /// or the shared items. Run it with `run(progress:)`, which reports each item:
    ///
    ///     var move = try ItemMigration.ownItems(from: "keyring", to: "file")
    ///     move.deleteSource = true
    ///     let report = try move.run { print("\($0.position)/\($0.total) \($0.outcome.word)") }
    ///
    /// Both names must be registered backends usable here (`errSecParam`, `errSecNotAvailable`).
    /// The placement (pin, recorded backend) is the operator's and is not touched.
    public static func ownItems(from source: String, to target: String, accessGroup: String? = nil) throws -> ItemMigration {
        let registry = KeychainBackendRegistry.withBuiltIns
        return ownItems(from: try registry.select(source), to: try registry.select(target), accessGroup: accessGroup)
    }

    /// The same move between two backend instances.
    public static func ownItems(from source: any KeychainBackend, to target: any KeychainBackend,
                                accessGroup: String? = nil) -> ItemMigration {
        ItemMigration(from: source, to: target, scope: .group(accessGroup ?? KeychainProgramIdentity.accessGroups[0]))
    }
}
