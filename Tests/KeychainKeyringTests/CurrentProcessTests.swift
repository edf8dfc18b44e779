#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
@testable import KeychainKeyring
import Testing

/// The cached process id must be the child's own in a forked child, or the child would take
/// its parent's keyring records (`ThreadKeyringLinks`, the lock keys) for its own.
@Suite("kernel keyring: the cached process id")
struct CurrentProcessTests {
    @Test func isThisProcessID() {
        #expect(CurrentProcess.id == getpid())
    }

    @Test func isTheChildsOwnIDInAForkedChild() throws {
        // Read once before the fork, so the child only reads what the fork handler stored:
        // nothing but async-signal-safe calls run between fork and _exit.
        let parent = CurrentProcess.id
        let child = fork()
        if child == 0 { _exit(CurrentProcess.id == getpid() && CurrentProcess.id != parent ? 0 : 1) }
        try #require(child > 0)
        var status: Int32 = 0
        #expect(waitpid(child, &status, 0) == child)
        // Exited normally (the low seven bits are the signal, zero) with status 0.
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 0)
    }
}
