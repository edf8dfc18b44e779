import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls
import KeychainBuiltInBackends

/// `linux-keychain run --env VAR SERVICE ACCOUNT [--env-ref VAR REFERENCE] [--env-file FILE] ... --
/// COMMAND [ARGS...]`: runs a command with secrets in its environment, as `aws-vault exec` and
/// `op run` do. `--env-ref` and the env file (`EnvFile`) name items by `SecretReference`, which
/// reaches internet passwords too.
///
/// Every secret is read before anything runs, so a missing item fails the whole run with
/// linux-keychain's own exit status and the command never starts. Then this process *becomes* the
/// command (`execvp`): its environment is ours minus the stores' credentials
/// (`StoreCredentials`, kept with `--keep-credentials`) plus exactly the named variables, it
/// inherits the descriptors linux-keychain was given and none linux-keychain opened, its exit status is
/// the command's, and no secret is ever on a command line, where `ps` would show it.
enum RunCommand {
    /// One variable to set and the item whose secret it gets.
    struct Request {
        let variable: String
        let item: ItemName
        /// Where it was asked for, for messages: `--env API_TOKEN` or `app.env:3`.
        let origin: String
        let fromCommandLine: Bool
    }

    static func run(_ parsed: ParsedCommand) throws {
        let inherited = InheritedDescriptors.current()
        let requests = try requests(parsed)
        let operations = try BackendChoice.operations(parsed)
        var secrets: [(variable: String, secret: SecretBytes)] = []
        for request in requests {
            do {
                guard let secret = try request.item.onlyItem(in: operations, reading: .secret).secret else {
                    throw KeychainError.notFound("no item for \(request.item.readableName)")
                }
                if secret.withUnsafeBytes({ $0.contains(0) }) {
                    throw KeychainError(errSecParam, "the secret for \(request.item.readableName) contains a NUL byte, which no environment variable can hold")
                }
                secrets.append((request.variable, secret))
            } catch var error as KeychainError {
                error.message += " (\(request.variable), from \(request.origin))"
                throw error
            }
        }
        if !parsed.has(.keepCredentials) { StoreCredentials.removeFromEnvironment() }
        // After the removal: a credential the caller asked for by name (--env VAULT_TOKEN ...) is exported.
        for (variable, secret) in secrets { try export(variable, secret) }
        inherited.markOthersCloseOnExec()
        exec(parsed.trailingCommand)
    }

    /// Every variable the command line asks for, by `--env`, `--env-ref` and `--env-file`,
    /// checked before any store is opened: names, references, the files, and no variable twice.
    static func requests(_ parsed: ParsedCommand) throws -> [Request] {
        let group = parsed.value(.group)
        var requests: [Request] = []
        for values in parsed.occurrences(.env) {
            let origin = "--env \(values[0])"
            requests.append(Request(variable: try variableName(values[0]),
                                    item: ItemName(service: values[1], account: values[2], group: group),
                                    origin: origin, fromCommandLine: true))
        }
        for values in parsed.occurrences(.envRef) {
            let origin = "--env-ref \(values[0])"
            let item: ItemName
            do throws(SecretReference.Problem) {
                item = try SecretReference.itemName(values[1], group: group)
            } catch {
                throw UsageError("\(origin): the reference \(error.reason)", command: "run")
            }
            requests.append(Request(variable: try variableName(values[0]), item: item, origin: origin, fromCommandLine: true))
        }
        for values in parsed.occurrences(.envFile) {
            for entry in try EnvFile(path: values[0], group: group).entries {
                requests.append(Request(variable: entry.variable, item: entry.item, origin: entry.place, fromCommandLine: false))
            }
        }
        guard !requests.isEmpty else {
            throw UsageError("run needs at least one --env VAR SERVICE ACCOUNT, --env-ref VAR REFERENCE or --env-file FILE", command: "run")
        }
        for (index, request) in requests.enumerated() {
            guard let earlier = requests[..<index].first(where: { $0.variable == request.variable }) else { continue }
            let message = "\(request.variable) is given twice (\(earlier.origin) and \(request.origin))"
            if earlier.fromCommandLine && request.fromCommandLine { throw UsageError(message, command: "run") }
            throw KeychainError(errSecParam, message)
        }
        return requests
    }

    private static func variableName(_ text: String) throws -> String {
        guard EnvironmentName.isValid(text) else {
            throw UsageError("'\(text)' is not an environment variable name (\(EnvironmentName.rule))", command: "run")
        }
        return text
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
}
