import FoundationEssentials
import Glibc

/// The manual page linux-keychain(1), in roff, generated from `CommandTable` like the help.
/// `linux-keychain manpage` prints it; scripts/package.sh installs it.
enum ManPage {
    /// The environment variables the command honours, for the ENVIRONMENT section.
    static let environment: [(name: String, meaning: String)] = [
        ("KEYCHAIN_BACKEND", "auto (the default), secret-service, keyring, file or vault; --backend overrides it. Without it, the user's pin (linux-keychain pin), the machine's, then the recorded choice apply."),
        ("KEYCHAIN_SYSTEM_CONFIG", "the machine's configuration file (default /etc/linux-keychain/config)."),
        ("KEYCHAIN_ACCESS_GROUP", "a program's own access group; the linux-keychain command sees every group unless --group names one."),
        ("KEYCHAIN_SECRET_SERVICE_COLLECTION", "secret-service: the collection alias or object path to store in."),
        ("KEYCHAIN_SECRET_SERVICE_TIMEOUT", "secret-service: seconds any one call may take (default 5)."),
        ("KEYCHAIN_LIBSECRET_PATH", "secret-service: the libsecret shared object to load."),
        ("KEYCHAIN_KEYRING", "keyring: persistent, user or session (default: persistent, else user)."),
        ("KEYCHAIN_FILE_DIR", "file: the store directory (default $XDG_DATA_HOME/linux-keychain)."),
        ("KEYCHAIN_FILE_PASSPHRASE", "file: the passphrase."),
        ("KEYCHAIN_FILE_PASSPHRASE_FILE", "file: a file holding the passphrase, e.g. from systemd LoadCredential=."),
        ("KEYCHAIN_FILE_CACHE_SECONDS", "file: how long an unlock is cached in the user keyring; 0 disables (default 300)."),
        ("VAULT_ADDR, VAULT_AGENT_ADDR, VAULT_TOKEN, VAULT_NAMESPACE, VAULT_CACERT, VAULT_CAPATH, VAULT_CLIENT_CERT, VAULT_CLIENT_KEY, VAULT_TLS_SERVER_NAME, VAULT_SKIP_VERIFY", "vault: the vault CLI's own variables (or BAO_*)."),
        ("KEYCHAIN_VAULT_AUTH", "vault: token (the default), approle (KEYCHAIN_VAULT_ROLE_ID, KEYCHAIN_VAULT_SECRET_ID or their _FILE forms) or cert (KEYCHAIN_VAULT_CERT_ROLE); KEYCHAIN_VAULT_AUTH_MOUNT names the method's mount."),
        ("KEYCHAIN_VAULT_TOKEN_CACHE", "vault: where tokens are kept between processes: user (default), session or off."),
        ("KEYCHAIN_VAULT_MOUNT, KEYCHAIN_VAULT_PREFIX", "vault: the KV v2 mount (default secret) and the folder of every item (default linux-keychain)."),
    ]

    /// The files the command reads and writes, for the FILES section.
    static let files: [(path: String, meaning: String)] = [
        ("$XDG_CONFIG_HOME/linux-keychain/config (default ~/.config/linux-keychain/config)",
         "the user's configuration: the backend linux-keychain pin wrote, and settings. Refused when others could write it."),
        ("/etc/linux-keychain/config", "the machine's configuration (KEYCHAIN_SYSTEM_CONFIG names another); the user's pin comes first."),
        ("$XDG_STATE_HOME/linux-keychain/backend (default ~/.local/state/linux-keychain/backend)",
         "the backend auto chose at this user's first write, kept so later runs use the same store."),
        ("$XDG_DATA_HOME/linux-keychain (default ~/.local/share/linux-keychain)",
         "file: the encrypted store (KEYCHAIN_FILE_DIR names another)."),
    ]

    static var text: String {
        var out: [String] = [
            ".TH \(KeychainVersion.command.uppercased()) 1 \"\(KeychainVersion.date)\" \"\(KeychainVersion.command) \(KeychainVersion.current)\" \"User Commands\"",
            ".SH NAME", "\(escape(KeychainVersion.command)) \\- \(HelpText.tagline)",
            ".SH SYNOPSIS",
            ".B " + escape(KeychainVersion.command), "[\\fB\\-\\-backend\\fR \\fINAME\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIOPERANDS\\fR]",
            ".SH DESCRIPTION",
            escape("linux-keychain stores secrets in the store LinuxKeychain chooses: the Secret Service (gnome-keyring, KeePassXC, KWallet), the kernel keyring, an encrypted file, or OpenBao/Vault. It reads and writes the same items as programs using the LinuxKeychain library, secret-tool, Python keyring and keyctl. Secrets go in on standard input and out on standard output, never on a command line."),
            ".SH COMMANDS",
        ]
        for spec in CommandTable.commands {
            out += [".TP", ".B " + escape(KeychainVersion.command + " " + spec.synopsis), escape(capitalizedSentence(spec.summary))]
            if !spec.aliases.isEmpty { out.append(escape("Also spelled: \(spec.aliases.joined(separator: ", ")).")) }
            for paragraph in spec.details { out += [".IP", escape(paragraph)] }
            guard !spec.options.isEmpty else { continue }
            out.append(".RS")
            for option in spec.options { out += [".TP", ".B " + escape(option.synopsis), escape(option.summary)] }
            out.append(".RE")
        }
        out.append(".SH GLOBAL OPTIONS")
        for option in CommandTable.globalOptions { out += [".TP", ".B " + escape(option.synopsis), escape(option.summary)] }
        out.append(".SH ENVIRONMENT")
        for variable in environment { out += [".TP", ".B " + escape(variable.name), escape(variable.meaning)] }
        out.append(".SH FILES")
        for file in files { out += [".TP", ".I " + escape(file.path), escape(file.meaning)] }
        out.append(".SH EXIT STATUS")
        for status in CLIStatus.documented { out += [".TP", ".B \(status.status)", escape(status.meaning)] }
        out += [
            ".SH EXAMPLES",
            ".nf",
            escape("printf %s \"$TOKEN\" | linux-keychain set api.example.com alice"),
            escape("linux-keychain get api.example.com alice"),
            escape("linux-keychain set --internet --protocol https --port 8443 git.example.com alice"),
            escape("linux-keychain search label 'deploy key' --json"),
            escape("linux-keychain run --env API_TOKEN api.example.com alice -- ./deploy.sh"),
            ".fi",
            ".SH SEE ALSO",
            "secret\\-tool(1), keyctl(1), bao(1)",
        ]
        return out.joined(separator: "\n") + "\n"
    }

    /// Text safe in roff: backslashes and hyphens escaped, no line starting with a control character.
    static func escape(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    private static func capitalizedSentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst() + "."
    }
}
