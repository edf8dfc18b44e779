import CPrctl
import Foundation
import KeychainCore
import LinuxKeychain

// The `keychain` command: secret-tool / Python keyring style access to LinuxKeychain.
// Every failure ends here as one line on stderr and a documented exit status.
// Before anything can hold a secret: no core dumps, no ptrace or /proc/PID/mem reads by other
// processes of the same user.
if CPrctl_makeNonDumpable() != 0 {
    Terminal.fail("could not make the process non-dumpable (prctl PR_SET_DUMPABLE): \(String(cString: strerror(errno)))",
                  status: CLIStatus.failure)
}

let invocation: Invocation
do {
    invocation = try Invocation(parsing: Array(CommandLine.arguments.dropFirst()))
} catch let usage as UsageError {
    Terminal.fail(usage.message + "\n\n" + Invocation.usage, status: CLIStatus.usage)
}

do {
    try invocation.command.run(backendName: invocation.backendName, group: invocation.group)
    exit(CLIStatus.success)
} catch let error as KeychainError {
    Terminal.fail(CLIStatus.describe(error), status: CLIStatus.exitStatus(for: error))
} catch let usage as UsageError {
    Terminal.fail(usage.message + "\n\n" + Invocation.usage, status: CLIStatus.usage)
} catch {
    Terminal.fail("unexpected failure: \(type(of: error))", status: CLIStatus.failure)
}
