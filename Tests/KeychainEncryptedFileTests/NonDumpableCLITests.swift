import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// The CLI holds secrets and unlocked keys, so it makes itself non-dumpable: no core dumps, and
/// other processes of the same user cannot ptrace it or read its memory. The kernel shows this
/// by giving the process's /proc files to root instead of the process's user.
@Suite("linux-keychain CLI: non-dumpable")
struct NonDumpableCLITests {
    @Test func theCLIIsNotDumpableWhileItWaitsForASecret() throws {
        let cli = try builtCLI()
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            try Test.cancel("running the CLI as another user needs root and setpriv")
        }
        // As an unprivileged user, so that /proc ownership tells dumpable (that user) from not (root).
        let child = KeychainCLIProcess("/usr/bin/setpriv",
                                       ["--reuid=65534", "--regid=65534", "--clear-groups", cli, "--backend", "keyring", "set",
                                        "nondumpable-\(UUID().uuidString)", "acct"],
                                       holdingInput: true)
        let pid = try #require(child.processIdentifier, "setpriv did not start")
        // Killed before it reads a secret, so it never stores one. SIGKILL, because a child
        // of the test runner may inherit a signal mask that blocks SIGTERM.
        defer {
            kill(pid, SIGKILL)
            child.release(nil)
            _ = try? child.wait()
        }
        let proc = "/proc/\(pid)"
        // Blocked reading the secret from stdin means start-up, prctl included, is over.
        var waiting = false
        for _ in 0..<200 where !waiting {
            let channel = (try? String(contentsOfFile: proc + "/wchan", encoding: .utf8)) ?? ""
            let command = (try? String(contentsOfFile: proc + "/comm", encoding: .utf8)) ?? ""
            waiting = command.hasPrefix("linux-keychain") && channel.contains("pipe_read")
            if !waiting { usleep(50_000) }
        }
        try #require(waiting, "the CLI did not start waiting for its secret within 10 seconds")
        var status = stat()
        #expect(stat(proc + "/environ", &status) == 0)
        #expect(status.st_uid == 0, "/proc/PID/environ belongs to uid \(status.st_uid): the CLI is dumpable")
    }
}
