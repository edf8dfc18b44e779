package import Foundation

/// The directory tests make their own directories in: with-services.sh's scratch directory
/// (LINUX_KEYCHAIN_SCRATCH), removed when the run ends together with whatever a daemon writes
/// there after a test, or else the system's temporary directory.
package var scratchBase: URL {
    ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_SCRATCH"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.temporaryDirectory
}

/// A path under `scratchBase` that no other test uses, named `prefix-` and a random part; not
/// created.
package func scratchPath(_ prefix: String) -> URL {
    scratchBase.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8).lowercased())")
}

/// A new directory under `scratchBase` for one test, private to this user (mode 0700).
package func makeScratchDirectory(_ prefix: String) throws -> URL {
    let directory = scratchPath(prefix)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    return directory
}
