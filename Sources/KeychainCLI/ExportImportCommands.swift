import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// `linux-keychain export FILE` and `linux-keychain import FILE`: every item of the operator's view (or
/// of one `--group`) into a passphrase-encrypted bundle, and back into a store, with the same
/// conflict rules as `migrate` (`ItemMigration`).
enum ExportImportCommands {
    static func export(_ parsed: ParsedCommand) throws {
        let path = parsed.operands[0]
        let source = try BackendChoice.operations(parsed)
        let limits = try BundleFormat.exportLimits(ProcessInfo.processInfo.environment)
        let found = try SourceItems.read(from: source.backend, scope: source.scope)
        let items = found.readable
        let passphrase = try BundlePassphrase.obtain(for: path, confirming: true)
        let counter = isatty(STDERR_FILENO) == 1
        try BundleFile.write(items, to: path, passphrase: passphrase, limits: limits) { done in
            if counter && (done % 200 == 0 || done == items.count) {
                Terminal.progress("export: \(done)/\(items.count)", done: done == items.count)
            }
        }
        Terminal.write("exported \(MoveAccount.items(items.count)) from '\(source.backend.name)' to \(path)\n")
        // The bundle carries what could be read; the exit status says it is not the whole store.
        for entry in found.unreadable { Terminal.note("unreadable: \(MoveAccount.describe(entry)) (\(CLIStatus.describe(entry.error)))") }
        if let first = found.unreadable.first?.error {
            throw KeychainError(first.status, "\(MoveAccount.items(found.unreadable.count)) of '\(source.backend.name)' could not be read (listed above) and are not in the bundle", backend: source.backend.name)
        }
    }

    static func `import`(_ parsed: ParsedCommand) throws {
        let path = parsed.operands[0]
        let target = try BackendChoice.operations(parsed).backend
        let passphrase = try BundlePassphrase.obtain(for: path, confirming: false)
        // Every message is checked before the first item is written.
        let items = try BundleFile.read(path, passphrase: passphrase)
        if !parsed.has(.dryRun) { try recordAutomaticChoice(of: target, parsed) }
        var migration = ItemMigration(from: MemoryBackend(), to: target, scope: .everything)
        migration.overwrite = parsed.has(.overwrite)
        migration.dryRun = parsed.has(.dryRun)
        let report = try MoveAccount.run(migration, items: items, verb: "import")
        try MoveAccount.finish(report, dryRun: migration.dryRun, target: target.name)
    }

    /// An import through `auto` with nothing pinned or recorded is this user's first write, so
    /// it records the store, as every first write through `auto` does: later runs elsewhere
    /// must look for these items where they went (`KeychainBackendRegistry.claimAutomaticChoice`).
    private static func recordAutomaticChoice(of target: any KeychainBackend, _ parsed: ParsedCommand) throws {
        let registry = KeychainBackendRegistry.withBuiltIns
        guard parsed.backendName == nil || parsed.backendName == KeychainBackendRegistry.automaticName else { return }
        let selection = try parsed.backendName == nil ? registry.currentSelection() : registry.automaticSelection()
        if selection.source == .automatic && selection.backend === target {
            try registry.claimAutomaticChoice(target)
        }
    }
}
