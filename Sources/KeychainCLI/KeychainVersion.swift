/// The release version, defined here only: `keychain --version` prints it, the man page
/// carries it, and scripts/package.sh reads it from the built binary to name the .deb.
/// Releases are tagged `vMAJOR.MINOR.PATCH` (semantic versioning); see CHANGELOG.md.
enum KeychainVersion {
    static let current = "0.1.0"
}
