import Foundation

/// How the many-process case ("processes") starts other processes that use the backend under
/// test: the `linux-keychain` CLI for the built-in backends, else a helper executable or a
/// closure the backend's author supplies. Each process does one operation and follows the CLI:
///
/// - `set SERVICE ACCOUNT`: stores the secret read from stdin until end of file; exits 0.
/// - `get SERVICE ACCOUNT`: writes the secret's exact bytes to stdout; exits 0, or 3 (`CLIExit.notFound`).
/// - `add SERVICE ACCOUNT`: adds the item with the secret from stdin; exits 0, or 4 (`CLIExit.duplicate`).
///
/// Open the backend *before* reading stdin: the case holds stdin open until all racers have
/// started, then releases them together so that their adds collide. See docs/backend-authors.md.
public struct ConformanceProcesses: Sendable {
    /// One process's job.
    public struct Request: Sendable {
        /// What the process does with the item: as `linux-keychain set`, `get` or `add`.
        public enum Operation: String, Sendable { case set, get, add }
        /// What to do.
        public let operation: Operation
        /// The item's service.
        public let service: String
        /// The item's account.
        public let account: String

        /// `[operation, service, account]`, the arguments the CLI convention takes.
        public var arguments: [String] { [operation.rawValue, service, account] }
    }

    private let starter: @Sendable (Request) throws -> KeychainCLIProcess

    /// Processes that `start` launches. It must start the process with `holdingInput: true`:
    /// the case writes the input (for `set` and `add`) and closes stdin itself.
    public init(start: @escaping @Sendable (Request) throws -> KeychainCLIProcess) {
        starter = start
    }

    /// Runs `executable ARGUMENTS... OPERATION SERVICE ACCOUNT` with `environment` added to
    /// this process's environment.
    public static func helper(_ executable: String, arguments: [String] = [], environment: [String: String] = [:]) -> Self {
        ConformanceProcesses { request in
            KeychainCLIProcess(executable, arguments + request.arguments, environment: environment, holdingInput: true)
        }
    }

    /// This package's `linux-keychain` CLI at `path`, selecting `backendName` with `--backend`.
    public static func keychainCLI(_ path: String, backendName: String, environment: [String: String] = [:]) -> Self {
        helper(path, arguments: ["--backend", backendName], environment: environment)
    }

    /// Starts the process for `request`, with its stdin still open.
    func start(_ operation: Request.Operation, _ service: String, _ account: String) throws -> KeychainCLIProcess {
        try starter(Request(operation: operation, service: service, account: account))
    }
}
