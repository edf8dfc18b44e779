package import FoundationEssentials
package import Glibc
import KeychainSystemCalls

/// Reads the small files that steer the library (the configuration files and the recorded
/// choice) only when their owner and mode say that nobody else could have written them, as
/// OpenSSH's `StrictModes` does for its configuration and keys.
///
/// A file is trusted when it is a regular file owned by one of `owners`, not writable by its
/// group or by others, in a directory that is also owned by one of `owners` (or by root) and
/// not writable by group or others unless it has the sticky bit (as `/tmp` has: others cannot
/// then replace the file). Every refusal is `errSecParam` with a message that names the path
/// and the fix, and never the file's content.
package struct TrustedFile: Sendable {
    /// Which file this is, for messages: e.g. "The keychain configuration file".
    package let role: String
    /// The path as configured.
    package let path: String
    /// The uids that may own it.
    package let owners: Set<uid_t>
    /// Whether a symbolic link at `path` is followed (configuration) or refused (the record).
    package let followsSymbolicLinks: Bool
    /// The most bytes it may hold; a longer file is refused rather than read.
    package let maximumSize: Int

    /// The effective user and root: who may own a user's own file.
    package static var currentUserOrRoot: Set<uid_t> { [geteuid(), 0] }

    package init(role: String, path: String, owners: Set<uid_t>, followsSymbolicLinks: Bool, maximumSize: Int) {
        self.role = role
        self.path = path
        self.owners = owners
        self.followsSymbolicLinks = followsSymbolicLinks
        self.maximumSize = maximumSize
    }

    /// The file's bytes, or nil when there is no file at `path`.
    package func contents() throws -> Data? {
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followsSymbolicLinks ? 0 : O_NOFOLLOW)
        let descriptor: Int32
        do {
            descriptor = try syscall("open") { open(path, flags) }
        } catch Errno.noSuchFileOrDirectory, Errno.notDirectory {
            return nil
        } catch Errno.permissionDenied where isHiddenByADirectoryOnTheWay {
            return nil
        } catch Errno.tooManySymbolicLinkLevels where !followsSymbolicLinks {
            throw refusal("is a symbolic link, which is never followed; replace it with a regular file")
        } catch {
            throw refusal("cannot be opened (\(error.reason))")
        }
        defer { try? closeDescriptor(descriptor) }  // read-only: a failed close loses nothing
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw refusal("cannot be examined") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw refusal("is not a regular file") }
        try checkOwner(of: status)
        try checkDirectory()
        guard status.st_size <= maximumSize else {
            throw refusal("is longer than \(maximumSize) bytes, more than such a file ever holds")
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var total = 0
        while total < bytes.count {
            let count = try? syscall("read") {
                bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            }
            guard let count else { throw refusal("cannot be read") }
            if count == 0 { break }
            total += count
        }
        guard total <= maximumSize else { throw refusal("is longer than \(maximumSize) bytes, more than such a file ever holds") }
        return Data(bytes[..<total])
    }

    /// Whether `stat` is refused too, for want of search permission on a directory on the way:
    /// that hides whether the file exists (another user's HOME under `runuser`), as good as no file.
    private var isHiddenByADirectoryOnTheWay: Bool {
        var status = stat()
        do {
            try syscall("stat") { stat(path, &status) }
            return false
        } catch {
            return error.errno == .permissionDenied
        }
    }

    private func checkOwner(of status: stat) throws {
        guard owners.contains(status.st_uid) else {
            throw refusal("is owned by uid \(status.st_uid), not by \(ownerNames), so someone else could have written it")
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw refusal("is writable by its group or by others (chmod go-w \(path) fixes that)")
        }
    }

    /// The directory holding the file (its real one, when `path` is a followed link): whoever
    /// can write there can replace the file.
    private func checkDirectory() throws {
        var resolved = path
        if followsSymbolicLinks, let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        let directory = URL(fileURLWithPath: resolved).deletingLastPathComponent().path
        var status = stat()
        guard stat(directory, &status) == 0 else { throw refusal("is in a directory that cannot be examined") }
        guard owners.union([0]).contains(status.st_uid) else {
            throw refusal("is in \(directory), owned by uid \(status.st_uid), not by \(ownerNames), so someone else could replace it")
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 || status.st_mode & S_ISVTX != 0 else {
            throw refusal("is in \(directory), which its group or others can write (chmod go-w \(directory) fixes that)")
        }
    }

    private var ownerNames: String {
        owners.sorted().map { $0 == 0 ? "root" : "uid \($0)" }.joined(separator: " or ")
    }

    private func refusal(_ reason: String) -> KeychainError {
        KeychainError.badParameter("\(role) \(path) \(reason), so it is not used.")
    }
}
