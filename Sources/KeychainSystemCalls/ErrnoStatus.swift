package import KeychainStatusCodes

/// What a failed call was working on, which decides what its errno means to a keychain user:
/// `EACCES` on a store file means the place is read-only, on a kernel key that this process
/// may not use the key.
package enum SystemResource: Sendable {
    /// Files and directories of a store (or a lock file).
    case files
    /// Kernel keys and keyrings (`add_key`, `keyctl`).
    case kernelKeys
}

extension Errno {
    /// The one errno→`OSStatus` mapping of every backend: what Apple code is told when a call
    /// on `resource` failed with this errno. Anything not named below is `errSecIO`.
    package func status(on resource: SystemResource) -> OSStatus {
        switch (self, resource) {
        case (.noSpace, .files), (.quotaExceeded, _):
            return errSecDiskFull
        case (.readOnlyFileSystem, .files), (.permissionDenied, .files), (.notPermitted, .files):
            return errSecReadOnly
        case (.notPermitted, .kernelKeys), (.notImplemented, .kernelKeys):
            // A seccomp filter (Docker's default profile) refuses the key system calls.
            return errSecNotAvailable
        case (.keyRevoked, .kernelKeys), (.keyExpired, .kernelKeys):
            return errSecDataNotAvailable
        case (.permissionDenied, .kernelKeys):
            return errSecAuthFailed
        case (.noMemory, .kernelKeys):
            return errSecAllocate
        default:
            return errSecIO
        }
    }
}
