import FoundationEssentials
import Glibc
import KeychainCore
import KeychainEntryPoints
import KeychainBuiltInBackends

/// `linux-keychain migrate --to NAME [--from NAME]`: every item of the operator's view (or of one
/// `--group`) copied from one store to another by `ItemMigration`, then the placement moved.
enum MigrateCommand {
    static func run(_ parsed: ParsedCommand) throws {
        guard let targetName = parsed.value(.to) else {
            throw UsageError("migrate needs --to NAME, the store to move the items to", command: "migrate")
        }
        let scope = Placement.scope(group: parsed.value(.group))
        // The store in effect: the source by default, and the one whose placement may follow.
        let inEffect = try? BackendChoice.operations(parsed).backend
        let source = try parsed.value(.from).map { try store(named: $0, role: "--from") }
            ?? BackendChoice.operations(parsed).backend
        let target = try store(named: targetName, role: "--to")
        guard source !== target else {
            throw KeychainError.badParameter("the source and the target are the same store ('\(target.name)'); name another with --to")
        }
        var migration = ItemMigration(from: source, to: target, scope: scope)
        migration.overwrite = parsed.has(.overwrite)
        migration.dryRun = parsed.has(.dryRun)
        migration.deleteSource = parsed.has(.deleteSource)
        let report = try MoveAccount.run(migration, verb: "migrate")
        try MoveAccount.finish(report, dryRun: migration.dryRun, target: target.name)
        if !migration.dryRun, parsed.value(.group) == nil {
            for line in try MigratedPlacement.follow(from: source.name, to: target.name, sourceWasInEffect: inEffect === source) { Terminal.note(line) }
        }
    }

    /// The usable backend `name`; `auto` and `memory` are refused, since neither names one store
    /// that outlives this process.
    static func store(named name: String, role: String) throws -> any KeychainBackend {
        guard name != KeychainBackendRegistry.automaticName else {
            throw KeychainError.badParameter("\(role) needs a backend name, not 'auto' ('linux-keychain backends' lists them)")
        }
        guard name != MemoryBackend.backendName else {
            throw KeychainError(errSecNotAvailable, "\(role) cannot be 'memory': it keeps items only inside one process, so they would be lost when keychain exits")
        }
        return try KeychainOperations.named(name, scope: .everything).backend
    }
}
