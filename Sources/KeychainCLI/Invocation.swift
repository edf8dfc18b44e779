/// A parsed command line: the backend override and the subcommand with its operands.
struct Invocation {
    var backendName: String?
    /// `--group`: narrows the CLI's operator view to one access group.
    var group: String?
    var command: Command

    static let usage = """
    usage: keychain [--backend NAME] COMMAND
      set SERVICE ACCOUNT      store the secret read from standard input (add or replace);
                               on a terminal, prompts without echo
      add SERVICE ACCOUNT      like set, but fails (exit 4) if the item exists
      get SERVICE ACCOUNT      write the secret's exact bytes to standard output
      delete SERVICE ACCOUNT   remove the item
      list [SERVICE] [--json]  show service, account, access group, label and modification date
                               (never secrets)
      backends                 show each backend, whether it is usable here, what auto picks,
                               and which backend is in effect and why
      pin NAME                 pin backend NAME in the user's configuration file
      unpin                    remove that pin
      passwd                   change the encrypted-file store's passphrase: the current one
                               comes from its usual source, the new one from standard input
                               (prompted twice on a terminal)
    options:
      --backend NAME           use NAME instead of $KEYCHAIN_BACKEND (default: auto)
      --group GROUP            only items of access group GROUP (default: every group;
                               set writes a shared item, with no group)
    exit status: 0 success, 1 failure, 2 usage, 3 item not found, 4 item already exists
    """

    /// Parses `arguments` (without the program name). `--backend` may stand anywhere.
    init(parsing arguments: [String]) throws {
        var operands: [String] = []
        var backendName: String?
        var json = false
        var group: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--backend":
                guard let name = remaining.popFirst(), !name.isEmpty else { throw UsageError("--backend needs a name") }
                backendName = name
            case _ where argument.hasPrefix("--backend="):
                backendName = String(argument.dropFirst("--backend=".count))
            case "--group":
                guard let name = remaining.popFirst(), !name.isEmpty else { throw UsageError("--group needs a group name") }
                group = name
            case "--json":
                json = true
            case "-h", "--help", "help":
                throw UsageError("keychain: store and read secrets in the Linux keychain")
            case "--":
                operands.append(contentsOf: remaining)
                remaining = []
            case _ where argument.hasPrefix("-") && argument.count > 1:
                throw UsageError("unknown option \(argument)")
            default:
                operands.append(argument)
            }
        }
        guard let verb = operands.first else { throw UsageError("missing command") }
        let rest = Array(operands.dropFirst())
        if json && verb != "list" { throw UsageError("--json goes with list") }
        self.backendName = backendName
        self.group = group
        self.command = try Command(verb: verb, operands: rest, json: json)
    }
}

/// Wrong words on the command line; the message is followed by the usage text.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
