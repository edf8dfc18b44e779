/// Takes a command line apart against `CommandTable`.
///
/// Conventions, as in git and secret-tool: global options come before or after the command;
/// `--name=value` and `--name value` both work; `--` ends the options (for `run`, everything
/// after it is the command to run, passed on untouched); `-h`/`--help` anywhere asks for help.
enum ArgumentParser {
    enum Outcome {
        case run(ParsedCommand)
        /// Help for one command, or the overview when nil.
        case help(CommandSpec?)
        case version
    }

    static func parse(_ arguments: [String]) throws -> Outcome {
        var remaining = arguments[...]
        var backendName: String?

        // Global options before the command.
        while let argument = remaining.first, argument.hasPrefix("-"), argument != "-" {
            remaining.removeFirst()
            let (name, inlineValue) = split(argument)
            switch name {
            case "--help", "-h": return .help(nil)
            case "--version": return .version
            case "--backend": backendName = try backendValue(inlineValue, &remaining, command: nil)
            default: throw UsageError("unknown option '\(name)'")
            }
        }
        guard let verb = remaining.popFirst() else { throw UsageError("missing command") }
        guard let spec = CommandTable.command(named: verb) else {
            let suggestion = CommandSuggestion.nearest(to: verb, among: CommandTable.commands.map(\.name))
            throw UsageError("unknown command '\(verb)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
        }

        var parsed = ParsedCommand(spec: spec, backendName: backendName)
        while let argument = remaining.popFirst() {
            if argument == "--" {
                if spec.takesCommandAfterSeparator {
                    parsed.trailingCommand = Array(remaining)
                } else {
                    parsed.operands += remaining
                }
                remaining = []
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                parsed.operands.append(argument)
                continue
            }
            let (name, inlineValue) = split(argument)
            if name == "--help" || name == "-h" { return .help(spec) }
            if name == "--backend" {
                parsed.backendName = try backendValue(inlineValue, &remaining, command: spec.name)
                continue
            }
            guard let option = spec.options.first(where: { matches($0, name) }) else {
                throw UsageError("\(spec.name) has no option '\(name)'", command: spec.name)
            }
            if !option.repeatable && parsed.options[option.name] != nil {
                throw UsageError("--\(option.name) is given twice", command: spec.name)
            }
            parsed.options[option.name, default: []].append(try values(of: option, inlineValue, &remaining, command: spec.name))
        }
        try checkOperands(parsed)
        return .run(parsed)
    }

    private static func checkOperands(_ parsed: ParsedCommand) throws {
        let spec = parsed.spec
        let (minimum, maximum) = spec.operandCount
        let expected = spec.operands.isEmpty ? "no operands" : spec.operands.map(\.synopsis).joined(separator: " ")
        if parsed.operands.count < minimum {
            let missing = spec.operands.filter { !$0.optional }.dropFirst(parsed.operands.count).map(\.name)
            throw UsageError("\(spec.name) needs \(missing.joined(separator: " ")) (usage: linux-keychain \(spec.name) \(expected))",
                             command: spec.name)
        }
        if let maximum, parsed.operands.count > maximum {
            throw UsageError("\(spec.name) takes \(expected), not '\(parsed.operands[maximum])'", command: spec.name)
        }
        if spec.takesCommandAfterSeparator && parsed.trailingCommand.isEmpty {
            throw UsageError("\(spec.name) needs '-- COMMAND' at the end", command: spec.name)
        }
    }

    /// `--name=value` as ("--name", "value"); anything else as (argument, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    private static func matches(_ option: OptionSpec, _ name: String) -> Bool {
        if name == "--\(option.name)" { return true }
        if let short = option.short, name == "-\(short)" { return true }
        return false
    }

    private static func values(of option: OptionSpec, _ inlineValue: String?, _ remaining: inout ArraySlice<String>,
                               command: String) throws -> [String] {
        if option.isFlag {
            if inlineValue != nil { throw UsageError("--\(option.name) takes no value", command: command) }
            return []
        }
        var values: [String] = []
        if let inlineValue {
            guard option.values.count == 1 else {
                throw UsageError("--\(option.name) takes \(option.values.joined(separator: " ")) as separate words", command: command)
            }
            values.append(inlineValue)
        }
        while values.count < option.values.count {
            guard let value = remaining.popFirst(), value != "--" else {
                throw UsageError("--\(option.name) needs \(option.values.joined(separator: " "))", command: command)
            }
            values.append(value)
        }
        return values
    }

    private static func backendValue(_ inlineValue: String?, _ remaining: inout ArraySlice<String>,
                                     command: String?) throws -> String {
        guard let name = inlineValue ?? remaining.popFirst(), !name.isEmpty, name != "--" else {
            throw UsageError("--backend needs a NAME", command: command)
        }
        return name
    }
}
