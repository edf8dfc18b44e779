import FoundationEssentials
import Glibc

extension BackendPlacement {
    /// Makes the record name `name`, replacing whatever it held, for `linux-keychain migrate` once the
    /// user's items are all in `name`. The new record is written beside the old one and renamed
    /// over it, so a crash leaves either the old record or the new, never none: a run in
    /// between never picks a store afresh. `memory` and malformed names are refused (`errSecParam`).
    package func replaceRecord(with name: String) throws {
        guard let recordPath else {
            throw KeychainError(errSecIO, "There is no home directory to record the keychain backend in; set HOME or XDG_STATE_HOME.")
        }
        if let refusal = Self.refusalToKeep(name) {
            throw KeychainError.badParameter("The keychain backend '\(name)' cannot be recorded: it \(refusal).")
        }
        let failure = KeychainError(errSecIO, "Could not record the keychain backend '\(name)' in \(recordPath); make that directory writable, or pin the backend with `linux-keychain pin \(name)`.")
        let directory = URL(fileURLWithPath: recordPath).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure
        }
        let temporary = "\(recordPath).\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data("\(name)\n".utf8),
                                             attributes: [.posixPermissions: 0o600]) else { throw failure }
        guard rename(temporary, recordPath) == 0 else {
            unlink(temporary)
            throw failure
        }
    }
}
