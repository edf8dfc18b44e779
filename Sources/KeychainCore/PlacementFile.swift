import Foundation

/// A configuration file that pins the backend and its settings, for a user or for the machine.
///
/// One `key = value` per line; blank lines and lines starting with `#` or `;` are ignored, and
/// an optional `[keychain]` header is allowed (in the spirit of Python keyring's
/// `keyringrc.cfg`):
///
///     [keychain]
///     backend = file
///     KEYCHAIN_FILE_DIR = /srv/app/keychain
///     KEYCHAIN_FILE_PASSPHRASE_FILE = /run/credentials/app.service/keychain
///
/// `backend` pins the backend by name. Every other key is a setting named exactly as its
/// environment variable (`KEYCHAIN_*`, `VAULT_*`, `BAO_*`); the environment still wins over
/// it. Secrets do not belong in a file that is read this way, so `KEYCHAIN_FILE_PASSPHRASE`,
/// `VAULT_TOKEN` and `BAO_TOKEN` are refused; name a passphrase file instead. A malformed file
/// is `errSecParam` naming the file and line, and no store is touched.
public struct PlacementFile: Sendable, Equatable {
    /// The key that pins the backend.
    public static let backendKey = "backend"
    /// Settings that would hold a secret, refused in a file.
    public static let secretKeys: Set<String> = ["KEYCHAIN_FILE_PASSPHRASE", "VAULT_TOKEN", "BAO_TOKEN"]

    public let path: String
    /// The pinned backend, or nil when the file pins none.
    public var backend: String?
    /// Settings by variable name.
    public var settings: [String: String]

    public init(path: String, backend: String? = nil, settings: [String: String] = [:]) {
        self.path = path
        self.backend = backend
        self.settings = settings
    }

    /// The file at `path`, or nil when there is none. Unreadable or malformed: `errSecParam`.
    public static func load(_ path: String) throws -> PlacementFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw KeychainError.badParameter("The keychain configuration file \(path) cannot be read as UTF-8 text.")
        }
        return try PlacementFile(path: path, parsing: text)
    }

    /// Parses `text`, reporting errors as `path:line`.
    public init(path: String, parsing text: String) throws {
        self.init(path: path)
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            let place = "\(path):\(index + 1)"
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") || line == "[keychain]" { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw KeychainError.badParameter("\(place): expected 'key = value' (e.g. 'backend = file').")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == Self.backendKey {
                guard !value.isEmpty else { throw KeychainError.badParameter("\(place): 'backend' needs a backend name.") }
                backend = value
            } else if Self.secretKeys.contains(key) {
                throw KeychainError.badParameter("\(place): \(key) holds a secret and is not read from a configuration file; use KEYCHAIN_FILE_PASSPHRASE_FILE or the environment.")
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
    public var text: String {
        var lines = ["# linux-keychain configuration: see docs/placement.md", "[keychain]"]
        if let backend { lines.append("\(Self.backendKey) = \(backend)") }
        lines += settings.keys.sorted().map { "\($0) = \(settings[$0]!)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
