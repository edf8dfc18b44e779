import Foundation
import KeychainConformance

/// Runs `script` with `/bin/sh` in a session keyring of its own (`keyctl session -`), as `sh
/// script cli arguments...` with `KEYCHAIN_KEYRING=session`. Through Python, which clears the
/// signal mask the test process hands its children: with SIGCHLD blocked, the shell's `wait`
/// for its background jobs never returns.
func runInOwnSessionKeyring(_ script: String, cli: String, _ arguments: [String], timeout: Double) throws -> KeychainCLIProcess.Result {
    let unblockAndRun = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"
    return try KeychainCLIProcess.run("/usr/bin/env",
                                      ["python3", "-c", unblockAndRun, "keyctl", "session", "-", "/bin/sh", "-c", script, "sh", cli]
                                          + arguments,
                                      environment: ["KEYCHAIN_KEYRING": "session"], timeout: timeout)
}
