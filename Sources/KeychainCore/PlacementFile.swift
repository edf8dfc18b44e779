import FoundationEssentials
package import Glibc

/// A configuration file that pins the backend and its settings, for a user or for the machine
/// (format and rules: docs/placement.md).
///
/// One `key = value` per line, `#` and `;` comments, an optional `[keychain]` header. `backend`
/// pins the backend; every other key is a setting named as its environment variable, which
/// still wins over it. Secrets and paths of code to load are refused, as is a malformed file
/// (`errSecParam` naming the file and line). It is read only when `TrustedFile` allows it.
package struct PlacementFile: Sendable, Equatable {
    /// The key that pins the backend.
    package static let backendKey = "backend"
    /// Settings that would hold a secret, refused in a file.
    package static let secretKeys: Set<String> = [
        "KEYCHAIN_FILE_PASSPHRASE", "VAULT_TOKEN", "BAO_TOKEN", "KEYCHAIN_VAULT_ROLE_ID", "KEYCHAIN_VAULT_SECRET_ID",
    ]
    /// The largest configuration file read; a longer one is refused unread.
    static let maximumSize = 64 * 1024
    /// Settings read from the environment alone, refused in a file rather than ignored: a
    /// program's identity belongs to that program (one in a file would give all of a user's or
    /// a machine's programs one group), and the system file's path cannot come from a file.
    package static let environmentOnlyKeys: Set<String> = [
        KeychainProgramIdentity.variable, KeychainProgramIdentity.groupsVariable, BackendPlacement.systemFileVariable,
    ]

    /// The file's path, for messages.
    package let path: String
    /// The pinned backend, or nil when the file pins none.
    package var backend: String?
    /// Settings by variable name.
    package var settings: [String: String]

    /// A file at `path` that pins `backend` (or none) with `settings`.
    package init(path: String, backend: String? = nil, settings: [String: String] = [:]) {
        self.path = path
        self.backend = backend
        self.settings = settings
    }

    /// The file at `path`, or nil when there is none. Unreadable, malformed, or owned or
    /// writable by anyone but `owners`: `errSecParam`.
    package static func load(_ path: String, owners: Set<uid_t>) throws -> PlacementFile? {
        let file = TrustedFile(role: "The keychain configuration file", path: path, owners: owners,
                               followsSymbolicLinks: true, maximumSize: maximumSize)
        guard let data = try file.contents() else { return nil }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeychainError.badParameter("The keychain configuration file \(path) cannot be read as UTF-8 text.")
        }
        return try PlacementFile(path: path, parsing: text)
    }

    /// Whether `key` names code to load (`KEYCHAIN_LIBSECRET_PATH` and any later `KEYCHAIN_LIB…_PATH`).
    package static func isLibraryPath(_ key: String) -> Bool {
        key.hasPrefix("KEYCHAIN_LIB") && key.hasSuffix("_PATH")
    }

    /// Parses `text`, reporting errors as `path:line`.
    package init(path: String, parsing text: String) throws {
        self.init(path: path)
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            let place = "\(path):\(index + 1)"
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") || line == "[keychain]" { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw KeychainError.badParameter("\(place): expected 'key = value' (e.g. 'backend = file').")
            }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            if key == Self.backendKey {
                guard !value.isEmpty else { throw KeychainError.badParameter("\(place): 'backend' needs a backend name.") }
                if let refusal = BackendPlacement.refusalToKeep(value) {
                    throw KeychainError.badParameter("\(place): 'backend' \(refusal).")
                }
                backend = value
            } else if Self.secretKeys.contains(key) {
                throw KeychainError.badParameter("\(place): \(key) holds a secret and is not read from a configuration file; use KEYCHAIN_FILE_PASSPHRASE_FILE or the environment.")
            } else if Self.isLibraryPath(key) {
                throw KeychainError.badParameter("\(place): \(key) names code to load and is read from the environment only, never from a configuration file.")
            } else if Self.environmentOnlyKeys.contains(key) {
                throw KeychainError.badParameter("\(place): \(key) is read from the environment only, never from a configuration file; set it where the program is started.")
            } else if Self.isSettingName(key) {
                settings[key] = value
            } else {
                throw KeychainError.badParameter("\(place): '\(key)' is not a setting; use 'backend' or a KEYCHAIN_*, VAULT_* or BAO_* variable name.")
            }
        }
    }

    private static func isSettingName(_ key: String) -> Bool {
        guard key != KeychainBackendRegistry.selectionVariable,
              ["KEYCHAIN_", "VAULT_", "BAO_"].contains(where: key.hasPrefix) else { return false }
        return key.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    /// The file's text, for writing it back after a change.
    package var text: String {
        var lines = ["# linux-keychain configuration: see docs/placement.md", "[keychain]"]
        if let backend { lines.append("\(Self.backendKey) = \(backend)") }
        lines += settings.keys.sorted().map { "\($0) = \(settings[$0]!)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
