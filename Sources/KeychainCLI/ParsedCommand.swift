/// A command line taken apart against the command table: which command, its operands, the
/// options given (each occurrence with its values), and the command after `--` for `run`.
struct ParsedCommand: Sendable {
    let spec: CommandSpec
    var backendName: String?
    var operands: [String] = []
    var options: [String: [[String]]] = [:]
    var trailingCommand: [String] = []

    init(spec: CommandSpec, backendName: String? = nil) {
        self.spec = spec
        self.backendName = backendName
    }

    /// Whether the flag or option `name` was given.
    func has(_ option: OptionSpec) -> Bool { options[option.name] != nil }

    /// The value of the last occurrence of a one-value option.
    func value(_ option: OptionSpec) -> String? { options[option.name]?.last?.first }

    /// Every occurrence of `option`, each with all its values.
    func occurrences(_ option: OptionSpec) -> [[String]] { options[option.name] ?? [] }
}

/// Wrong words on the command line. `main` prints the message and a hint at the command's help.
struct UsageError: Error {
    let message: String
    /// The command whose help the hint points to, when known.
    let command: String?

    init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command
    }

    /// The line after the message, pointing at the help that explains the mistake.
    var hint: String {
        if let command { return "Try 'linux-keychain \(command) --help'." }
        return "Try 'linux-keychain --help'."
    }
}
