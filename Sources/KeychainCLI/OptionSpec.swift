/// One option of the `linux-keychain` command line, as the help, the man page, the completions and
/// the parser all see it. Declared once in `CommandTable`; nothing else spells an option out.
struct OptionSpec: Sendable {
    /// What a shell should offer after the option (or for an operand).
    enum Completion: Sendable {
        case nothing
        case backendNames
        case shells
        case commandNames
        case protocols
        case files
    }

    /// The long name without its dashes, e.g. `label` for `--label`.
    let name: String
    /// A one-letter alias, e.g. `h` for `-h`.
    let short: Character?
    /// Placeholders for the values the option takes, in order; empty for a flag.
    let values: [String]
    /// One line for the help text and the man page.
    let summary: String
    /// Whether it may be given more than once (each occurrence keeps its values).
    let repeatable: Bool
    /// What to complete for its first value.
    let completion: Completion

    init(_ name: String, short: Character? = nil, values: [String] = [], repeatable: Bool = false,
         completion: Completion = .nothing, _ summary: String) {
        self.name = name
        self.short = short
        self.values = values
        self.summary = summary
        self.repeatable = repeatable
        self.completion = completion
    }

    /// `--name VALUE...` as the help and the man page show it.
    var synopsis: String {
        var text = "--\(name)"
        if let short { text = "-\(short), " + text }
        for value in values { text += " \(value)" }
        return text
    }

    var isFlag: Bool { values.isEmpty }
}

extension OptionSpec {
    // Options several commands share, declared once so their wording cannot drift apart.

    static let help = OptionSpec("help", short: "h", "show this help and exit")
    static let version = OptionSpec("version", "print the version and exit")
    static let backend = OptionSpec("backend", values: ["NAME"], completion: .backendNames,
                                    "use the backend NAME instead of $KEYCHAIN_BACKEND (default: auto)")
    static let json = OptionSpec("json", "print JSON instead of a table")
    /// `--json` on `get`.
    static let itemJSON = OptionSpec("json", "print the item's attributes and its secret as one JSON object")
    static let internet = OptionSpec("internet", short: "i",
                                     "an internet password: the first operand is a SERVER, not a SERVICE")
    static let `protocol` = OptionSpec("protocol", values: ["PROTOCOL"], completion: .protocols,
                                       "internet password's protocol, e.g. https, ssh, imaps (implies --internet)")
    static let port = OptionSpec("port", values: ["PORT"], "internet password's port (implies --internet)")
    static let path = OptionSpec("path", values: ["PATH"], "internet password's path (implies --internet)")
    static let label = OptionSpec("label", values: ["TEXT"], "a label for people, as Seahorse and Keychain Access show it")
    static let comment = OptionSpec("comment", values: ["TEXT"], "a comment stored with the item")
    /// `--group` on the commands that read, list or move items.
    static let group = OptionSpec("group", values: ["GROUP"], "only items of access group GROUP (default: every group)")
    /// `--group` on `set` and `add`: the same option, described as what it writes.
    static let writeGroup = OptionSpec("group", values: ["GROUP"],
                                       "write the item into access group GROUP (default: a shared item, with no group)")
    static let env = OptionSpec("env", values: ["VAR", "SERVICE", "ACCOUNT"], repeatable: true,
                                "put the secret of SERVICE/ACCOUNT into the variable VAR")

    static let envRef = OptionSpec("env-ref", values: ["VAR", "REFERENCE"], repeatable: true,
                                   "put the secret REFERENCE names into VAR: keychain:SERVICE/ACCOUNT or keychain+PROTOCOL://ACCOUNT@SERVER[:PORT][/PATH]")
    static let envFile = OptionSpec("env-file", values: ["FILE"], repeatable: true, completion: .files,
                                    "set the variables FILE names, one NAME=REFERENCE a line")
    static let allowEmpty = OptionSpec("allow-empty", "store an empty secret, which is refused otherwise")

    static let keepCredentials = OptionSpec("keep-credentials",
                                            "leave the stores' credentials (passphrase, tokens, AppRole ids) in COMMAND's environment")

    static let to = OptionSpec("to", values: ["NAME"], completion: .backendNames, "the store to move the items to")
    static let from = OptionSpec("from", values: ["NAME"], completion: .backendNames,
                                 "the store to move the items from (default: the one in effect)")
    static let dryRun = OptionSpec("dry-run", "show what would be copied and what conflicts; write and delete nothing")
    static let overwrite = OptionSpec("overwrite", "replace target items that differ, instead of listing them as conflicts")
    static let deleteSource = OptionSpec("delete-source",
                                         "once every item is copied and verified, delete them from the source")

    /// The options that name an internet password beyond its server and account.
    static let internetNaming: [OptionSpec] = [.internet, .protocol, .port, .path]
}
