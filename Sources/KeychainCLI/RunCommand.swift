import Foundation
import KeychainCore
import KeychainSystemCalls
import LinuxKeychain

/// `linux-keychain run --env VAR SERVICE ACCOUNT [--env ...] -- COMMAND [ARGS...]`: runs a command
/// with secrets in its environment, as `aws-vault exec` and `op run` do.
///
/// Every secret is read before anything runs, so a missing item fails the whole run with
/// linux-keychain's own exit status and the command never starts. Then this process *becomes* the
/// command (`execvp`): its environment is ours minus the stores' credentials
/// (`StoreCredentials`, kept with `--keep-credentials`) plus exactly the named variables, it
/// inherits the descriptors linux-keychain was given and none linux-keychain opened, its exit status is
/// the command's, and no secret is ever on a command line, where `ps` would show it.
enum RunCommand {
    static func run(_ parsed: ParsedCommand) throws {
        let inherited = InheritedDescriptors.current()
        let requests = parsed.occurrences(.env)
        guard !requests.isEmpty else {
            throw UsageError("run needs at least one --env VAR SERVICE ACCOUNT", command: "run")
        }
        var seen = Set<String>()
        for request in requests {
            let variable = request[0]
            guard isVariableName(variable) else {
                throw UsageError("'\(variable)' is not an environment variable name (letters, digits and _, not starting with a digit)", command: "run")
            }
            guard seen.insert(variable).inserted else { throw UsageError("--env \(variable) is given twice", command: "run") }
        }

        let operations = try BackendChoice.operations(parsed)
        var secrets: [(variable: String, secret: SecretBytes)] = []
        for request in requests {
            let name = ItemName(service: request[1], account: request[2], group: parsed.value(.group))
            guard let secret = try name.onlyItem(in: operations, reading: .secret).secret else {
                throw KeychainError.notFound("no item for \(name.readableName)")
            }
            if secret.withUnsafeBytes({ $0.contains(0) }) {
                throw KeychainError(errSecParam, "the secret for \(name.readableName) contains a NUL byte, which no environment variable can hold")
            }
            secrets.append((request[0], secret))
        }
        if !parsed.has(.keepCredentials) { StoreCredentials.removeFromEnvironment() }
        // After the removal: a credential the caller asked for by name (--env VAULT_TOKEN ...) is exported.
        for (variable, secret) in secrets { try export(variable, secret) }
        inherited.markOthersCloseOnExec()
        exec(parsed.trailingCommand)
    }

    /// Sets `variable` to the secret's bytes through a buffer that is zeroed once `setenv` has
    /// copied it.
    private static func export(_ variable: String, _ secret: SecretBytes) throws {
        var buffer = [CChar](repeating: 0, count: secret.withUnsafeBytes(\.count) + 1)
        defer { buffer.withUnsafeMutableBytes { SecretBytes.zero($0) } }
        secret.withUnsafeBytes { bytes in
            buffer.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
        }
        if setenv(variable, buffer, 1) != 0 {
            throw KeychainError(errSecAllocate, "could not set \(variable) in the environment", failedCall: "setenv")
        }
    }

    /// Replaces this process with `command`; returns only by exiting, with the shell's
    /// statuses (127: not found, 126: could not be run) when exec fails.
    private static func exec(_ command: [String]) -> Never {
        var arguments = command.map { strdup($0) }
        arguments.append(nil)
        let failure: Errno
        do {
            try syscall("execvp") { execvp(command[0], &arguments) }
            failure = Errno.current  // execvp returns only when it failed
        } catch {
            failure = error.errno
        }
        Terminal.fail("run: cannot run '\(command[0])': \(failure)",
                      status: failure == .noSuchFileOrDirectory ? 127 : 126)
    }

    private static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
