import FoundationEssentials
import Glibc
import KeychainSystemCalls

/// Where the backend choice and its settings come from, besides code and `KEYCHAIN_BACKEND`:
/// the user's configuration file, the machine's, and the choice `auto` recorded at the user's
/// first write (paths and rules: docs/placement.md and docs/operators.md).
///
/// The record keeps `auto` from quietly changing stores once the user's items are in one. All
/// three are trust boundaries: each is read only when `TrustedFile` allows it, the record is
/// never followed through a symbolic link nor echoed, and neither a pin nor the record may
/// name `memory`.
package struct BackendPlacement: Sendable {
    /// The variable that replaces the system file's path (for tests and unusual layouts).
    package static let systemFileVariable = "KEYCHAIN_SYSTEM_CONFIG"
    /// The machine's file when `KEYCHAIN_SYSTEM_CONFIG` is unset.
    package static let defaultSystemFile = "/etc/linux-keychain/config"

    /// The environment the paths were read from.
    package let environment: [String: String]
    /// The user's configuration file; nil without an absolute `HOME` or `XDG_CONFIG_HOME`.
    package let userFilePath: String?
    /// The machine's configuration file.
    package let systemFilePath: String
    /// Where `auto`'s first write records its choice; nil without an absolute `HOME` or `XDG_STATE_HOME`.
    package let recordPath: String?

    /// The files as `environment` places them (XDG variables, `HOME`, `KEYCHAIN_SYSTEM_CONFIG`).
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        func base(_ variable: String, _ fallback: String) -> String? {
            // The XDG spec says to ignore a relative path.
            if let explicit = environment[variable], explicit.hasPrefix("/") { return explicit }
            return home.map { $0 + fallback }
        }
        userFilePath = base("XDG_CONFIG_HOME", "/.config").map { $0 + "/linux-keychain/config" }
        recordPath = base("XDG_STATE_HOME", "/.local/state").map { $0 + "/linux-keychain/backend" }
        let system = environment[Self.systemFileVariable] ?? ""
        systemFilePath = system.isEmpty ? Self.defaultSystemFile : system
    }

    /// The longest record read: a backend name and its newline.
    static let maximumRecordSize = 65

    /// The user's file then the system's, those that exist. Malformed, or not trusted (the
    /// user's owned by someone other than this user or root, the machine's by anyone but
    /// root, either writable by others): `errSecParam`.
    package func files() throws -> (user: PlacementFile?, system: PlacementFile?) {
        (try userFilePath.flatMap { try PlacementFile.load($0, owners: TrustedFile.currentUserOrRoot) },
         try PlacementFile.load(systemFilePath, owners: [0]))
    }

    /// Why `name` may not be pinned in a file or recorded, or nil when it may: `memory` keeps
    /// items in one process, and a name must be a short run of letters, digits, `.`, `_`, `-`.
    package static func refusalToKeep(_ name: String) -> String? {
        if name == MemoryBackend.backendName {
            return "names 'memory', which keeps items only in the memory of the process that wrote them, so every later run would find nothing; it can only be chosen per process, with \(KeychainBackendRegistry.selectionVariable)=memory"
        }
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard allowed, (1...64).contains(name.utf8.count) else {
            return "is not a backend name (1 to 64 letters, digits, '.', '_' or '-')"
        }
        return nil
    }

    /// The settings backends read: the system file's, overridden by the user file's,
    /// overridden by the environment. A malformed file contributes nothing here; selection
    /// reports it.
    package var effectiveEnvironment: [String: String] {
        guard let (user, system) = try? files() else { return environment }
        var merged = system?.settings ?? [:]
        merged.merge(user?.settings ?? [:]) { _, user in user }
        merged.merge(environment) { _, environment in environment }
        return merged
    }

    /// The backend `auto` recorded, or nil when none was recorded. A record that is not one
    /// line holding a name `refusalToKeep` allows, other than `auto`, or that `TrustedFile`
    /// does not trust (a symbolic link among them), is `errSecParam`; its content is never
    /// part of the message, since a record planted as a link could point at any file.
    package func recordedBackend() throws -> String? {
        guard let recordPath else { return nil }
        let file = TrustedFile(role: "The recorded keychain backend", path: recordPath, owners: TrustedFile.currentUserOrRoot,
                               followsSymbolicLinks: false, maximumSize: Self.maximumRecordSize)
        guard let data = try file.contents() else { return nil }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if text.isEmpty { return nil }
        guard text != KeychainBackendRegistry.automaticName, Self.refusalToKeep(text) == nil else {
            let why = text == MemoryBackend.backendName ? Self.refusalToKeep(text)! : "does not hold a backend that can be recorded"
            throw KeychainError.badParameter("The recorded keychain backend \(recordPath) \(why); remove that file to choose afresh, or pin a backend with `linux-keychain pin NAME`.")
        }
        return text
    }

    /// Claims `name` as the user's backend before the first write through `auto`, and returns
    /// the name the record holds afterwards: `name`, or the one another process recorded first.
    ///
    /// The record is written beside the final path and hard-linked into place, so it is created
    /// whole and only once: of two first writes at one moment, exactly one claim wins and the
    /// other learns the winner's name. A record that cannot be written is an `errSecIO` error,
    /// because a write that went ahead unrecorded could be followed, in another environment,
    /// by a run that picks another store and answers "not found".
    package func claim(_ name: String) throws -> String {
        guard let recordPath else {
            throw KeychainError(errSecIO, "There is no home directory to record the keychain backend in; set HOME or XDG_STATE_HOME, or choose a backend with KEYCHAIN_BACKEND.")
        }
        if let refusal = Self.refusalToKeep(name) {
            throw KeychainError.badParameter("The keychain backend '\(name)' cannot be recorded: it \(refusal).")
        }
        if let existing = try recordedBackend() { return existing }
        func failure(_ what: String) -> KeychainError {
            KeychainError(errSecIO, "Could not record the keychain backend '\(name)' in \(recordPath) (\(what)), so nothing was written: a later run elsewhere could not know where the item is. Make that directory writable, or choose a backend with KEYCHAIN_BACKEND or `linux-keychain pin NAME`.")
        }
        let directory = URL(fileURLWithPath: recordPath).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure("cannot create its directory")
        }
        let temporary = "\(recordPath).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data("\(name)\n".utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw failure("cannot create a file there")
        }
        defer { unlink(temporary) }
        do {
            try syscall("link") { link(temporary, recordPath) }
            return name
        } catch {
            // EEXIST: another process recorded its choice first, and that one stands.
            if error.errno == .fileExists, let existing = try recordedBackend() { return existing }
            throw failure(error.reason)
        }
    }

    /// Forgets the recorded choice.
    package func forgetRecord() throws {
        guard let recordPath, FileManager.default.fileExists(atPath: recordPath) else { return }
        do {
            try FileManager.default.removeItem(atPath: recordPath)
        } catch {
            throw KeychainError(errSecIO, "Could not remove the recorded backend choice \(recordPath).")
        }
    }

    /// Pins `name` in the user's file (nil removes the pin), keeping its settings.
    package func pin(_ name: String?) throws {
        guard let userFilePath else {
            throw KeychainError(errSecNotAvailable, "No home directory for the keychain configuration; set HOME or XDG_CONFIG_HOME.")
        }
        if let name, let refusal = Self.refusalToKeep(name) {
            throw KeychainError.badParameter("The keychain backend '\(name)' cannot be pinned: it \(refusal).")
        }
        var file = try PlacementFile.load(userFilePath, owners: TrustedFile.currentUserOrRoot) ?? PlacementFile(path: userFilePath)
        file.backend = name
        let directory = URL(fileURLWithPath: userFilePath).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try Data(file.text.utf8).write(to: URL(fileURLWithPath: userFilePath), options: .atomic)
        } catch {
            throw KeychainError(errSecIO, "Could not write the keychain configuration \(userFilePath).")
        }
    }
}

/// Where the backend in use was chosen.
package enum BackendSource: Hashable, Sendable, CustomStringConvertible {
    /// `KeychainBackendRegistry.use(_:)`.
    case code
    /// `KEYCHAIN_BACKEND` (or the CLI's `--backend`).
    case environment
    /// The user's configuration file at this path.
    case userFile(String)
    /// The machine's configuration file at this path.
    case systemFile(String)
    /// The choice `auto` recorded at the user's first write, in this file.
    case recorded(String)
    /// `auto`'s order, with nothing recorded yet.
    case automatic

    /// How `linux-keychain backends` names the source, e.g. `pinned in the user's file PATH`.
    package var description: String {
        switch self {
        case .code: return "chosen in code"
        case .environment: return "from \(KeychainBackendRegistry.selectionVariable)"
        case .userFile(let path): return "pinned in the user's file \(path)"
        case .systemFile(let path): return "pinned in the system file \(path)"
        case .recorded(let path): return "recorded at the first write, in \(path)"
        case .automatic: return "automatic: nothing pinned or recorded yet"
        }
    }
}

/// A backend together with where its choice came from.
package struct BackendSelection: Sendable {
    /// The backend in use.
    package let backend: any KeychainBackend
    /// Where its choice came from.
    package let source: BackendSource

    /// `backend`, chosen by `source`.
    package init(backend: any KeychainBackend, source: BackendSource) {
        self.backend = backend
        self.source = source
    }
}
