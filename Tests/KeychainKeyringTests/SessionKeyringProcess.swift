import Foundation
import KeychainConformance
import KeychainTestSupport

/// Runs `script` with `/bin/sh` in a session keyring of its own (`keyctl session -`), as `sh
/// script cli arguments...` with `KEYCHAIN_KEYRING=session`, with no signal blocked
/// (`UnblockedSignals`): with SIGCHLD blocked, the shell's `wait` for its background jobs never returns.
func runInOwnSessionKeyring(_ script: String, cli: String, _ arguments: [String], timeout: Double) throws -> KeychainCLIProcess.Result {
    try KeychainCLIProcess.run(UnblockedSignals.launcher,
                               UnblockedSignals.arguments(["keyctl", "session", "-", "/bin/sh", "-c", script, "sh", cli] + arguments),
                               environment: ["KEYCHAIN_KEYRING": "session"], timeout: timeout)
}
