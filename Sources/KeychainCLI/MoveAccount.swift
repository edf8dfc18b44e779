import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// What `migrate` and `import` print while they move items: one line per item on standard
/// output (its outcome and its name, never its secret), a counter on standard error when that
/// is a terminal, and a summary; and the exit status the outcome calls for.
enum MoveAccount {
    /// Runs `migration` over the source's items (or `items`), printing each item's line.
    static func run(_ migration: ItemMigration, items: [KeychainItem]? = nil, verb: String) throws -> MigrationReport {
        let counter = isatty(STDERR_FILENO) == 1
        let progress: (MigrationProgress) -> Void = { step in
            let name = step.key.map(describe) ?? describe(place: step.place)
            Terminal.write("\(step.outcome.word): \(name)\(detail(step.outcome))\n")
            // A counter every 50 items and at the end: redrawing it per item would cost more than the move.
            if counter && (step.position % 50 == 0 || step.position == step.total) {
                Terminal.progress("\(verb): \(step.position)/\(step.total)", done: step.position == step.total)
            }
        }
        if let items { return migration.run(items: items, progress: progress) }
        return try migration.run(progress: progress)
    }

    /// The summary line, then success, or the error for conflicts and failures.
    static func finish(_ report: MigrationReport, dryRun: Bool, target: String) throws {
        Terminal.write("\(dryRun ? "dry run, nothing written: " : "")\(report.summary)\n")
        if !report.changedDuringMove.isEmpty {
            Terminal.note("\(items(report.changedDuringMove.count)) of the source changed during the move and were not deleted from the source")
        }
        if let failure = report.failures.first?.error ?? report.damaged.first?.error {
            throw KeychainError(failure.status, "\(items(report.failures.count + report.damaged.count)) could not be moved to '\(target)' (listed above; the first: \(failure.message)); nothing was deleted from the source and the placement did not move", backend: failure.backend)
        }
        if !report.conflicts.isEmpty && !dryRun {
            throw KeychainError.duplicate("\(items(report.conflicts.count)) differ from the target's items of the same name (listed above) and were left alone; nothing was deleted from the source and the placement did not move. Give --overwrite to replace the target's items")
        }
    }

    /// An item's name as the lines show it: class, names and, when set, group and internet naming.
    static func describe(_ key: PrimaryKey) -> String {
        let attributes = key.attributes
        var text = key.itemClass.displayName + " "
        text += key.readableName
        if key.itemClass == .internetPassword {
            if let code = attributes.string(.protocol), !code.isEmpty { text += ", protocol '\(ProtocolNames.name(for: code))'" }
            if case .integer(let port)? = attributes[.port], port != 0 { text += ", port \(port)" }
            if let path = attributes.string(.path), !path.isEmpty { text += ", path '\(path)'" }
        }
        if let group = attributes.string(.accessGroup), !group.isEmpty { text += ", group '\(group)'" }
        if attributes.flag(.synchronizable) { text += ", synchronizable" }
        return text
    }

    /// An unreadable source entry's name: its item's, or, for one too damaged to name, where it lies.
    static func describe(_ entry: UnreadableEntry) -> String {
        entry.key.map(describe) ?? describe(place: entry.place)
    }

    private static func describe(place: String?) -> String {
        "damaged entry '\(place ?? "unknown")'"
    }

    /// `1 item`, `2 items`.
    static func items(_ count: Int) -> String { count == 1 ? "1 item" : "\(count) items" }

    private static func detail(_ outcome: MigrationOutcome) -> String {
        switch outcome {
        case .conflict(let differences): return " (differs in: \(differences.joined(separator: ", ")))"
        case .failed(let error): return " (\(CLIStatus.describe(error)))"
        default: return ""
        }
    }
}
