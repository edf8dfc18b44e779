import Foundation
import Glibc
import KeychainConformance
import KeychainTestSupport
import Testing

/// Issue #29's many processes on the `file` backend, in a store of its own.
@Suite("file backend under many processes")
struct FileManyProcessesTests {
    /// 16 processes of 8 threads each run the thread-pool workload on one store at once: every
    /// call succeeds with the exact answer, and after them no file of the store is still
    /// locked, no item is left, and the next write goes through.
    @Test func sixteenProcessesOfEightThreadsLoseNothingAndLeaveNoLock() throws {
        let store = try makeScratchDirectory("file-many")
        defer { try? FileManager.default.removeItem(at: store) }
        let problems = try problemsOfManyProcesses(ThreadPoolWorkload(threads: 8), on: "file",
                                                   environment: ["KEYCHAIN_FILE_DIR": store.path], lockedFilesUnder: [store.path])
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The lock check above can fail: a file this test holds a `flock` on is reported.
    @Test func aHeldFlockIsReported() throws {
        let directory = try makeScratchDirectory("flock-seen")
        defer { try? FileManager.default.removeItem(at: directory) }
        let descriptor = open(directory.path + "/held.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(flock(descriptor, LOCK_EX) == 0)
        #expect(filesLockedByFlock(under: directory.path) == ["held.lock"])
    }
}
