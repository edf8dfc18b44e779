/// One `linux-keychain` command: its names, its operands, its options, its help and what it does.
///
/// Every command lives in `CommandTable.commands`; the usage text, `linux-keychain help COMMAND`,
/// the man page and the shell completions are generated from there.
struct CommandSpec: Sendable {
    /// One operand placeholder, e.g. `SERVICE`, with what a shell should complete for it.
    struct Operand: Sendable {
        let name: String
        let optional: Bool
        let repeating: Bool
        let completion: OptionSpec.Completion

        init(_ name: String, optional: Bool = false, repeating: Bool = false, completion: OptionSpec.Completion = .nothing) {
            self.name = name
            self.optional = optional
            self.repeating = repeating
            self.completion = completion
        }

        var synopsis: String {
            let text = repeating ? "\(name)..." : name
            return optional ? "[\(text)]" : text
        }
    }

    let name: String
    /// Other names that run the same command (`store` for `set`, as secret-tool spells it).
    let aliases: [String]
    let operands: [Operand]
    let options: [OptionSpec]
    /// One line for the command list.
    let summary: String
    /// Paragraphs for `linux-keychain help COMMAND` and the man page.
    let details: [String]
    /// Whether everything after `--` is passed on untouched (`run`'s command).
    let takesCommandAfterSeparator: Bool
    let run: @Sendable (ParsedCommand) throws -> Void

    init(_ name: String, aliases: [String] = [], operands: [Operand] = [], options: [OptionSpec] = [],
         takesCommandAfterSeparator: Bool = false, summary: String, details: [String] = [],
         run: @escaping @Sendable (ParsedCommand) throws -> Void) {
        self.name = name
        self.aliases = aliases
        self.operands = operands
        self.options = options
        self.summary = summary
        self.details = details
        self.takesCommandAfterSeparator = takesCommandAfterSeparator
        self.run = run
    }

    /// `set [--label TEXT] ... SERVICE ACCOUNT`, as the usage line shows it.
    var synopsis: String {
        var parts = [name]
        if !options.isEmpty { parts.append("[OPTIONS]") }
        parts += operands.map(\.synopsis)
        if takesCommandAfterSeparator { parts.append("-- COMMAND [ARGS...]") }
        return parts.joined(separator: " ")
    }

    var allNames: [String] { [name] + aliases }

    /// The fewest and most operands the command accepts (nil: no upper bound).
    var operandCount: (minimum: Int, maximum: Int?) {
        let minimum = operands.filter { !$0.optional }.count
        return (minimum, operands.contains(where: \.repeating) ? nil : operands.count)
    }
}
