#if canImport(Glibc)
import Glibc
#endif
import CKeyutils
import Foundation
import KeychainStatusCodes
import KeychainKernelKeyCalls
import KeychainSystemCalls
import Testing

@Suite("system-call layer")
struct SystemCallTests {
    @Test func aFailureNamesTheCallAndTheErrnoReadRightAfterIt() {
        let missing = "/nonexistent-\(UUID().uuidString)"
        do {
            try syscall("open") { open(missing, O_RDONLY | O_CLOEXEC) }
            Issue.record("opening a missing path succeeded")
        } catch {
            #expect(error.call == "open")
            #expect(error.errno == .noSuchFileOrDirectory)
            #expect(error.errno.rawValue == ENOENT)
            #expect(error.reason == String(cString: strerror(ENOENT)))
        }
    }

    @Test func anInterruptedCallIsRepeatedUnlessTheCallerSaysNot() throws {
        var attempts = 0
        let interruptedOnce: () -> Int32 = {
            attempts += 1
            if attempts == 1 { errno = EINTR; return -1 }
            return 7
        }
        #expect(try syscall("fake", interruptedOnce) == 7)
        #expect(attempts == 2)

        attempts = 0
        let failure = #expect(throws: SystemCallError.self) { try syscall("fake", retryOnInterrupt: false, interruptedOnce) }
        #expect(failure?.errno == .interrupted)
        #expect(attempts == 1)
    }

    @Test func onlyMinusOneIsAFailure() throws {
        // Other negative results are values (an offset, a signed count), not failures.
        #expect(try syscall("fake") { Int(-2) } == -2)
    }

    @Test func errnoPatternsMatchInCatchClauses() {
        let failure = SystemCallError(call: "keyctl_search", errno: .noSuchKey)
        #expect(Errno.noSuchKey ~= failure)
        #expect(!(Errno.keyExpired ~= failure))
        #expect(Errno.noSuchKey ~= Errno.noSuchKey)
        struct Other: Error {}
        #expect(!(Errno.noSuchKey ~= Other()))
        #expect(Errno(rawValue: ENOKEY) == .noSuchKey)
    }

    /// The backends catch by these names where they compared with the C constants before.
    @Test(arguments: [
        (Errno.noSuchFileOrDirectory, ENOENT), (.notDirectory, ENOTDIR), (.directoryNotEmpty, ENOTEMPTY),
        (.tooManySymbolicLinkLevels, ELOOP), (.fileExists, EEXIST), (.permissionDenied, EACCES),
        (.wouldBlock, EWOULDBLOCK), (.readOnlyFileSystem, EROFS), (.notSupported, EOPNOTSUPP),
        (.notPermitted, EPERM), (.notImplemented, ENOSYS), (.noSuchKey, ENOKEY),
    ])
    func eachNameStandsForItsConstant(_ name: Errno, _ constant: Int32) {
        #expect(name.rawValue == constant)
    }

    @Test func aTypedFailureIsCaughtByOneOfSeveralNames() {
        do {
            try syscall("mkdir") { mkdir("/", 0o700) }
            Issue.record("making / succeeded")
        } catch Errno.noSuchFileOrDirectory, Errno.fileExists {
            // The root always exists.
        } catch {
            Issue.record("mkdir / failed otherwise: \(error)")
        }
    }

    @Test func closeIsNotRetriedAndReportsABadDescriptor() throws {
        var pair: [Int32] = [-1, -1]
        try syscall("pipe") { pipe(&pair) }
        try closeDescriptor(pair[0])
        try closeDescriptor(pair[1])
        let failure = #expect(throws: SystemCallError.self) { try closeDescriptor(pair[1]) }
        #expect(failure?.call == "close")
        #expect(failure?.errno == Errno(rawValue: EBADF))
    }

    /// The one errno→OSStatus mapping: each errno a backend reports, with the status Apple code
    /// has been told for it so far.
    @Test(arguments: [
        (ENOSPC, SystemResource.files, errSecDiskFull), (EDQUOT, .files, errSecDiskFull),
        (EROFS, .files, errSecReadOnly), (EACCES, .files, errSecReadOnly), (EPERM, .files, errSecReadOnly),
        (ENOMEM, .files, errSecIO), (EIO, .files, errSecIO), (ENOKEY, .files, errSecIO),
        (EPERM, .kernelKeys, errSecNotAvailable), (ENOSYS, .kernelKeys, errSecNotAvailable),
        (EDQUOT, .kernelKeys, errSecDiskFull), (ENOSPC, .kernelKeys, errSecIO),
        (EKEYREVOKED, .kernelKeys, errSecDataNotAvailable), (EKEYEXPIRED, .kernelKeys, errSecDataNotAvailable),
        (EACCES, .kernelKeys, errSecAuthFailed), (ENOMEM, .kernelKeys, errSecAllocate),
        (EROFS, .kernelKeys, errSecIO), (ENOKEY, .kernelKeys, errSecIO),
    ])
    func statusOfEachErrno(_ code: Int32, _ resource: SystemResource, _ status: OSStatus) {
        #expect(Errno(rawValue: code).status(on: resource) == status)
    }

    @Test func aMissingKeyIsNoSuchKey() {
        let failure = #expect(throws: SystemCallError.self) {
            try KernelKeyCalls.search(KEY_SPEC_PROCESS_KEYRING, type: "user",
                                      description: "linux-keychain:test:absent-\(UUID().uuidString)")
        }
        #expect(failure.map { Errno.noSuchKey ~= $0 } == true)
        #expect(failure?.call == "keyctl_search")
    }

    @Test func anExpiringKeyIsPutReadAndInvalidated() throws {
        // A keyring in the process keyring: private to this test process, gone when it exits.
        let destination = try KernelKeyCalls.add(type: "keyring", "linux-keychain:test:\(UUID().uuidString)", payload: nil,
                                                 to: KEY_SPEC_PROCESS_KEYRING)
        let description = "linux-keychain:test:expiring-\(UUID().uuidString)"
        let payload: [UInt8] = Array("payload".utf8)
        try payload.withUnsafeBytes { try KernelKeyCalls.putExpiring(description, payload: $0, lifetime: 60, into: destination) }
        let key = try KernelKeyCalls.search(destination, type: "user", description: description)
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = try buffer.withUnsafeMutableBytes { try KernelKeyCalls.read(key, into: $0) }
        #expect(Array(buffer[..<length]) == payload)
        try KernelKeyCalls.invalidate(key)
        #expect(throws: SystemCallError.self) { try KernelKeyCalls.search(destination, type: "user", description: description) }
    }
}
