/// Runs a child with no signal blocked. The test process blocks some signals on its threads and
/// children inherit the mask: with SIGCHLD blocked a shell's `wait` never returns, and
/// `dbus-run-session` cannot stop its bus. Python clears the mask, then becomes the child.
package enum UnblockedSignals {
    /// The program to start: `env`, which finds python3 on PATH.
    package static let launcher = "/usr/bin/env"

    /// The launcher's arguments that run `command` (a program, a path or a name on PATH, and
    /// its arguments) with an empty signal mask.
    package static func arguments(_ command: [String]) -> [String] {
        ["python3", "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"]
            + command
    }
}
