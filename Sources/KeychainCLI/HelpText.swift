/// The help texts, generated from `CommandTable`.
enum HelpText {
    static let tagline = "store and read secrets in the Linux keychain"

    /// `linux-keychain --help`: every command with its summary, the global options and exit statuses.
    static var overview: String {
        var lines = ["\(KeychainVersion.command) \(KeychainVersion.current): \(tagline)", "",
                     "usage: \(KeychainVersion.command) [--backend NAME] COMMAND [OPTIONS] [OPERANDS]", "", "commands:"]
        let rows = CommandTable.commands.map { ($0.synopsis, $0.summary) }
        lines += table(rows)
        lines += ["", "global options:"]
        lines += table(CommandTable.globalOptions.map { ($0.synopsis, $0.summary) })
        lines += ["", "exit status:"]
        lines += table(CLIStatus.documented.map { (String($0.status), $0.meaning) })
        lines += ["", "'linux-keychain help COMMAND' shows a command's options; 'man linux-keychain' has the rest."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `linux-keychain help COMMAND`: its usage line, summary, details and options.
    static func help(for spec: CommandSpec) -> String {
        var lines = ["usage: \(KeychainVersion.command) \(spec.synopsis)", "", capitalized(spec.summary) + "."]
        if !spec.aliases.isEmpty { lines.append("Also spelled: \(spec.aliases.joined(separator: ", ")).") }
        for paragraph in spec.details { lines += [""] + wrap(paragraph, width: 78) }
        lines += ["", "options:"]
        lines += table((spec.options + CommandTable.optionsOfEveryCommand).map { ($0.synopsis, $0.summary) })
        return lines.joined(separator: "\n") + "\n"
    }

    /// `linux-keychain help [COMMAND]`.
    static func printHelp(for command: String?) throws {
        guard let command else { return Terminal.write(overview) }
        guard let spec = CommandTable.command(named: command) else {
            throw UsageError("no command '\(command)' to show help for")
        }
        Terminal.write(help(for: spec))
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(rows.map(\.0.count).max() ?? 0, 34)
        return rows.map { left, right in
            let padded = left.count >= width ? left + "  " : left.padded(to: width) + "  "
            let indent = String(repeating: " ", count: width + 4)
            let wrapped = wrap(right, width: max(30, 78 - width - 4))
            if left.count > width {
                return (["  " + left] + wrapped.map { indent + $0 }).joined(separator: "\n")
            }
            return (["  " + padded + wrapped[0]] + wrapped.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }
    }

    /// Words of `text` in lines of at most `width` characters (a longer word gets its own line).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        lines.append(line)
        return lines
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
