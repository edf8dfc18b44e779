import FoundationEssentials
import Glibc

/// The environment variables that grant access to a store rather than say where it is or
/// how to reach it (docs/environment.md): passphrases, tokens, AppRole ids, a TLS client's
/// private key, and the files that hold them. `run` removes them from its command's
/// environment unless `--keep-credentials`: the command was meant to get its secrets, not
/// the means to read every other.
enum StoreCredentials {
    static let variables = [
        "KEYCHAIN_FILE_PASSPHRASE", "KEYCHAIN_FILE_PASSPHRASE_FILE",
        "VAULT_TOKEN", "BAO_TOKEN",
        "KEYCHAIN_VAULT_ROLE_ID", "KEYCHAIN_VAULT_ROLE_ID_FILE", "KEYCHAIN_VAULT_SECRET_ID", "KEYCHAIN_VAULT_SECRET_ID_FILE",
        "VAULT_CLIENT_KEY", "BAO_CLIENT_KEY", "KEYCHAIN_BUNDLE_PASSPHRASE", "KEYCHAIN_BUNDLE_PASSPHRASE_FILE",
    ]

    /// Removes every one of `variables` from this process's environment.
    static func removeFromEnvironment() {
        for variable in variables { unsetenv(variable) }
    }
}
