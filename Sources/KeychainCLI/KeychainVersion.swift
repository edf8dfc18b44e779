import CBuildInfo

/// The release version and the command's name, defined here only: `linux-keychain --version`
/// prints both with the commit, the help, the man page and the completions carry them, and
/// scripts/package.sh reads the version from the built binary to name the .deb.
/// Releases are tagged `vMAJOR.MINOR.PATCH` (semantic versioning); see CHANGELOG.md.
enum KeychainVersion {
    static let current = "0.1.0"
    /// The date of `current`, as the man page's header shows it; set with `current` at each release.
    static let date = "2026-12-02"
    /// Not `keychain`: Debian's ssh-agent manager is installed as /usr/bin/keychain and keychain(1).
    static let command = "linux-keychain"
    /// The git commit of the build (Package.swift's buildCommit), or "unknown".
    static let commit = String(cString: CBuildInfo_commit())
    /// What `--version` prints: `linux-keychain 0.1.0 (commit 0123abcd4567)`.
    static var line: String { "\(command) \(current) (commit \(commit))" }
}
