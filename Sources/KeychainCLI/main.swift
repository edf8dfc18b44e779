import CPrctl
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls
import KeychainBuiltInBackends

// The `linux-keychain` command: secret-tool / Python keyring style access to LinuxKeychain.
// Every failure ends here as one line on stderr (plus a hint for usage errors) and a
// documented exit status; help and the version go to stdout with status 0.
// Before anything can hold a secret: no core dumps, no ptrace or /proc/PID/mem reads by other
// processes of the same user.
do {
    try syscall("prctl(PR_SET_DUMPABLE)") { CPrctl_makeNonDumpable() }
} catch {
    Terminal.fail("could not make the process non-dumpable (\(error))", status: CLIStatus.failure)
}

do {
    switch try ArgumentParser.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help(let spec):
        Terminal.write(spec.map(HelpText.help(for:)) ?? HelpText.overview)
    case .version:
        Terminal.write(KeychainVersion.line + "\n")
    case .run(let parsed):
        try parsed.spec.run(parsed)
    }
    exit(CLIStatus.success)
} catch let error as KeychainError {
    Terminal.fail(CLIStatus.describe(error), status: CLIStatus.exitStatus(for: error))
} catch let usage as UsageError {
    Terminal.fail(usage.message + "\n" + usage.hint, status: CLIStatus.usage)
} catch let failure as SystemCallError {
    // A C call whose failure no store turned into a KeychainError: its name and errno, which hold no secret.
    Terminal.fail("unexpected failure: \(failure.call) failed: \(failure.reason)", status: CLIStatus.failure)
} catch {
    Terminal.fail("unexpected failure: \(type(of: error))", status: CLIStatus.failure)
}
