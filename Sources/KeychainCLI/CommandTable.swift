/// Every `linux-keychain` command, in the order the help lists them. The one place a command is
/// declared: the parser, `linux-keychain help`, the man page and the completions read this table.
///
/// To add a command, append a `CommandSpec` here with its operands, options (shared ones from
/// `OptionSpec`), summary, details and the function that runs it.
enum CommandTable {
    static let commands: [CommandSpec] = [
        CommandSpec("set", aliases: ["store"], operands: itemOperands, options: [.label, .comment, .writeGroup, .allowEmpty] + OptionSpec.internetNaming,
                    summary: "store the secret read from standard input (add or replace)",
                    details: [
                        "Reads the secret from standard input to its end and keeps every byte, so binary secrets and trailing newlines survive. On a terminal it prompts and reads one line without echo. An empty secret is refused (exit 1, nothing stored) unless --allow-empty is given: an empty input is almost always a broken pipeline upstream, such as $(cat missing-file).",
                        "With --internet (or --protocol, --port, --path) the item is an internet password named by SERVER ACCOUNT and those options, as Apple's kSecClassInternetPassword.",
                    ]) { try ItemCommands.set($0, addOnly: false) },
        CommandSpec("add", operands: itemOperands, options: [.label, .comment, .writeGroup, .allowEmpty] + OptionSpec.internetNaming,
                    summary: "like set, but fail (exit 4) if the item exists",
                    details: ["Two racing adds of one item: exactly one succeeds."]) { try ItemCommands.set($0, addOnly: true) },
        CommandSpec("get", aliases: ["lookup"], operands: itemOperands, options: [.group, .itemJSON] + OptionSpec.internetNaming,
                    summary: "write the secret's exact bytes to standard output",
                    details: ["A newline follows them only when standard output is a terminal, as with secret-tool lookup: a pipe or a file gets the exact bytes. A missing item is one line on standard error and exit status 3; when an item of the other class has that name (an internet password of that server), the line names it and the options that reach it.",
                              "With --json, one object with the fields of list --json plus the secret, which get prints anyway: \"secret\" holds the bytes as text when they are UTF-8 and in base64 otherwise, as \"secret-encoding\" (utf-8 or base64) says. Errors never carry it."]) {
                        try ItemCommands.get($0)
                    },
        CommandSpec("delete", aliases: ["del", "clear"], operands: itemOperands, options: [.group] + OptionSpec.internetNaming,
                    summary: "remove the item") { try ItemCommands.delete($0) },
        CommandSpec("list", operands: [.init("SERVICE", optional: true)], options: [.json, .group],
                    summary: "show the items of both classes (never their secrets)",
                    details: [
                        "Shows class, service (or protocol://server:port/path), account, access group, label and modification date of every generic and internet password, in every access group, including items other tools (secret-tool, Python keyring) wrote. With SERVICE, only the generic passwords of that service and the internet passwords of that server; with --group, only that group's items.",
                    ]) { try ListCommands.list($0) },
        CommandSpec("search", operands: [.init("NAME VALUE", repeating: true)], options: [.json, .group],
                    summary: "show the items whose attributes have these values",
                    details: [
                        "Like 'secret-tool search': every item whose attribute NAME equals VALUE, for each pair given. Names: \(AttributeName.all.map(\.name).joined(separator: ", ")). Secrets are never shown; use get.",
                    ]) { try ListCommands.search($0) },
        CommandSpec("run", options: [.env, .envRef, .envFile, .group, .keepCredentials], takesCommandAfterSeparator: true,
                    summary: "run COMMAND with secrets in its environment",
                    details: [
                        "Usage: linux-keychain run [--env VAR SERVICE ACCOUNT] [--env-ref VAR REFERENCE] [--env-file FILE] ... [--keep-credentials] -- COMMAND [ARGS...]",
                        "A REFERENCE names a generic password as keychain:SERVICE/ACCOUNT (the service runs to the last /) or an internet password as keychain+PROTOCOL://ACCOUNT@SERVER[:PORT][/PATH] (the account runs to the last @; PROTOCOL as --protocol takes it, or 'internet' for any).",
                        "An env file has one NAME=REFERENCE a line, e.g. DB_PASSWORD=keychain:myapp/db. Blank lines and lines starting with # are skipped, and in an unquoted value a # after a blank starts a comment; 'export NAME=...' is allowed; a value in single or double quotes is taken as written, without escapes. A plain value (not a reference) and a NAME given twice are refused, naming the line and never the value. The file must be owned by you and writable by nobody else.",
                        "Reads every secret first: a missing item is an error and COMMAND does not run. Then linux-keychain becomes COMMAND (exec), whose environment is linux-keychain's (without the stores' credentials, below) plus exactly those variables and whose exit status is the run's. Secrets never appear on a command line. A command that cannot be found exits 127, one that cannot run 126.",
                        "COMMAND does not get the stores' credentials unless --keep-credentials is given: \(StoreCredentials.variables.joined(separator: ", ")) are removed from its environment (a variable named by --env is set all the same). It inherits the file descriptors linux-keychain was started with, and none that linux-keychain opened (no connection to Vault, no lock, no D-Bus socket).",
                    ]) { try RunCommand.run($0) },
        CommandSpec("backends", options: [.json], summary: "show each backend, whether it is usable here, and what auto picks",
                    details: [
                        "Exits 6 when no backend the linux-keychain command can use is usable here.",
                        "With --json, one object: \"backends\", each with \"name\", \"state\" (usable, not usable or refused), \"usable\", \"explanation\", \"chosen-by-auto\" and, for a store that loses its items at reboot, \"warning\"; \"auto\" with the \"backend\" auto picks (null for none), whether it is \"locked\" and why; and \"in-effect\" with the \"backend\" in effect (null for none) and where it was chosen (\"source\") or why nothing is usable (\"explanation\").",
                    ]) { try BackendReport.run($0) },
        CommandSpec("pin", operands: [.init("NAME", completion: .backendNames)],
                    summary: "pin the backend NAME in the user's configuration file",
                    details: ["Later runs without --backend or KEYCHAIN_BACKEND use NAME; where it cannot run they say so and never fall back. 'linux-keychain pin auto' is 'linux-keychain unpin'."]) {
                        try Placement.pin($0.operands[0])
                    },
        CommandSpec("unpin", summary: "remove the pin, so auto chooses again (or its recorded choice holds)") { _ in
            try Placement.pin(nil)
        },
        CommandSpec("migrate", options: [.to, .from, .group, .dryRun, .overwrite, .deleteSource],
                    summary: "copy every item to another store, verify it, then keep using that store",
                    details: [
                        "Copies every item of both classes, in every access group (or the one --group names) and the shared items, from the --from store (default: the one in effect) to the --to store, keeping the secret's exact bytes, label, comment, internet protocol, port, path, authentication type, security domain, access group, the synchronizable flag and the creation and modification dates. Each copy is read back and compared before it counts. One line per item says what happened to it: copied, already present, conflict, overwritten or failed; secrets are never shown.",
                        "Safe to interrupt and to repeat: the target only gains whole items, and running the same command again copies what is missing and reports the rest as already present. A target item of the same name with other bytes or attributes is a conflict: listed, left alone, and exit status 4, unless --overwrite is given.",
                        "Only when every item is in the target does it delete them from the source (--delete-source) and move the placement: a pin of the source in the user's file becomes a pin of the target, and so does the machine's; otherwise the recorded backend becomes the target. With --group, the placement stays. Nothing moves with --dry-run.",
                    ]) { try MigrateCommand.run($0) },
        CommandSpec("export", operands: [.init("FILE", completion: .files)], options: [.group],
                    summary: "write every item to FILE, encrypted with a passphrase, for another machine",
                    details: [
                        "Writes every item of the store in effect (or of --group), with its secret and every attribute, to the new file FILE (mode 0600), encrypted with libsodium's crypto_secretstream under a key Argon2id derives from the passphrase. Nothing is written in plaintext, and FILE is whole or absent.",
                        "The passphrase comes from KEYCHAIN_BUNDLE_PASSPHRASE, from the file KEYCHAIN_BUNDLE_PASSPHRASE_FILE names, or from the terminal, asked twice without echo. KEYCHAIN_BUNDLE_KDF=interactive, moderate (the default) or sensitive sets Argon2id's cost, which is stored in the file.",
                    ]) { try ExportImportCommands.export($0) },
        CommandSpec("import", operands: [.init("FILE", completion: .files)], options: [.dryRun, .overwrite],
                    summary: "copy every item of a bundle made by export into the store",
                    details: [
                        "Decrypts and checks the whole bundle first: a wrong passphrase, a truncated file or a changed byte is refused and nothing is imported. Then each item is copied as migrate copies it: read back and compared, already present when the store holds the same item, a conflict (listed, left alone, exit status 4) when it holds other bytes, unless --overwrite is given. The passphrase comes as for export, asked once.",
                    ]) { try ExportImportCommands.import($0) },
        CommandSpec("passwd", summary: "change the encrypted-file store's passphrase",
                    details: [
                        "The current passphrase comes from its usual source (KEYCHAIN_FILE_PASSPHRASE, KEYCHAIN_FILE_PASSPHRASE_FILE or the terminal); the new one from standard input, or typed twice on a terminal.",
                    ]) { try PassphraseChange.run(backendName: $0.backendName) },
        CommandSpec("completion", operands: [.init("SHELL", completion: .shells)],
                    summary: "print a completion script for bash, zsh or fish",
                    details: [
                        "bash: linux-keychain completion bash | sudo tee /usr/share/bash-completion/completions/linux-keychain >/dev/null",
                        "zsh: linux-keychain completion zsh > \"${fpath[1]}/_linux-keychain\"",
                        "fish: linux-keychain completion fish > ~/.config/fish/completions/linux-keychain.fish",
                    ]) { try CompletionScripts.run($0) },
        CommandSpec("manpage", summary: "print the manual page linux-keychain(1) in roff",
                    details: ["linux-keychain manpage | man -l -"]) { _ in Terminal.write(ManPage.text) },
        CommandSpec("help", operands: [.init("COMMAND", optional: true, completion: .commandNames)],
                    summary: "show the help of keychain or of COMMAND") { parsed in
                        try HelpText.printHelp(for: parsed.operands.first)
                    },
    ]

    /// The options every command takes, listed once in the overview.
    static let globalOptions: [OptionSpec] = [.backend, .help, .version]

    /// The global options that may also follow a command.
    static let optionsOfEveryCommand: [OptionSpec] = [.backend, .help]

    private static let itemOperands: [CommandSpec.Operand] = [.init("SERVICE"), .init("ACCOUNT")]

    static func command(named name: String) -> CommandSpec? {
        commands.first { $0.allNames.contains(name) }
    }
}
