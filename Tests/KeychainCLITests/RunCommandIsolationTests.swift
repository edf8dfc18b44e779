import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// `linux-keychain run` hands the command its secrets and nothing else of the store: no credential
/// in its environment (unless `--keep-credentials`), and no descriptor the library opened
/// (a connection to Vault, libcurl's socketpair, a store's lock, the D-Bus connection); the
/// descriptors linux-keychain itself was given still reach it.
@Suite("linux-keychain run: what the command inherits")
struct RunCommandIsolationTests {
    /// Every variable that grants access to a store (docs/cli.md lists the same).
    static let credentialVariables = [
        "KEYCHAIN_FILE_PASSPHRASE", "KEYCHAIN_FILE_PASSPHRASE_FILE", "VAULT_TOKEN", "BAO_TOKEN",
        "KEYCHAIN_VAULT_ROLE_ID", "KEYCHAIN_VAULT_ROLE_ID_FILE", "KEYCHAIN_VAULT_SECRET_ID", "KEYCHAIN_VAULT_SECRET_ID_FILE",
        "VAULT_CLIENT_KEY", "BAO_CLIENT_KEY", "KEYCHAIN_BUNDLE_PASSPHRASE", "KEYCHAIN_BUNDLE_PASSPHRASE_FILE",
    ]

    /// Lists the shell's own descriptors (`ls` runs as its child, so its own are not in the
    /// list), then its environment.
    static let inspection = #"ls /proc/$$/fd; echo ---; env"#

    /// Starts keychain with stdin, stdout, stderr and descriptor 9 (on /dev/null) only, as a
    /// caller that hands the command a descriptor of its own would.
    static let launcher = """
        import os, subprocess, sys
        os.dup2(os.open("/dev/null", os.O_RDONLY), 9)
        sys.exit(subprocess.run(sys.argv[1:], close_fds=True, pass_fds=(9,)).returncode)
        """
    static let given: Set<String> = ["0", "1", "2", "9"]

    private func keychain(_ arguments: [String], _ store: Store) throws -> KeychainCLIProcess.Result {
        let cli = try builtCLI()
        return try KeychainCLIProcess.run("/usr/bin/python3", ["-c", Self.launcher, cli] + arguments, environment: store.environment)
    }

    @Test(arguments: ["vault", "file", "secret-service"])
    func theCommandGetsNeitherTheStoresCredentialsNorItsDescriptors(_ backend: String) throws {
        let store = try Self.store(backend)
        let cli = try builtCLI()
        defer {
            _ = try? KeychainCLIProcess.run(cli, ["--backend", backend, "delete", "run-isolation", "api"], environment: store.environment)
            store.cleanUp()
        }
        let set = try KeychainCLIProcess.run(cli, ["--backend", backend, "set", "run-isolation", "api"],
                                             input: Data("the-one-secret".utf8), environment: store.environment)
        try #require(set.status == 0, "linux-keychain set: \(set.errorText)")

        let run = try keychain(["--backend", backend, "run", "--env", "API_TOKEN", "run-isolation", "api",
                                "--", "sh", "-c", Self.inspection], store)
        try #require(run.status == 0, "linux-keychain run: \(run.errorText)")
        let (descriptors, environment) = Self.parse(run.outputText)
        #expect(descriptors == Self.given, "the command inherited descriptors \(descriptors), linux-keychain was given \(Self.given)")
        #expect(environment["API_TOKEN"] == "the-one-secret")
        let leaked = Self.credentialVariables.filter { environment[$0] != nil }
        #expect(leaked.isEmpty, "the command received \(leaked)")
        #expect(environment["KEYCHAIN_BACKEND"] == backend, "other settings are kept")

        let kept = try keychain(["--backend", backend, "run", "--keep-credentials", "--env", "API_TOKEN",
                                 "run-isolation", "api", "--", "sh", "-c", Self.inspection], store)
        try #require(kept.status == 0, "linux-keychain run --keep-credentials: \(kept.errorText)")
        let (keptDescriptors, keptEnvironment) = Self.parse(kept.outputText)
        #expect(keptDescriptors == Self.given, "the command inherited descriptors \(keptDescriptors)")
        for variable in Self.credentialVariables {
            #expect(keptEnvironment[variable] == store.environment[variable], "--keep-credentials lost \(variable)")
        }
    }

    /// The descriptor numbers before the `---` line and the variables after it.
    static func parse(_ output: String) -> (descriptors: Set<String>, environment: [String: String]) {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = lines.firstIndex(of: "---") ?? lines.endIndex
        var environment: [String: String] = [:]
        for line in lines[marker...].dropFirst() {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return (Set(lines[..<marker].filter { !$0.isEmpty }), environment)
    }

    /// A store of `backend` and the environment that reaches it, with every credential
    /// variable set: the backend's own real ones, and the others with values that backend
    /// never reads.
    struct Store {
        let environment: [String: String]
        let directory: URL

        func cleanUp() { try? FileManager.default.removeItem(at: directory) }
    }

    static func store(_ backend: String) throws -> Store {
        let directory = try makeScratchDirectory("lkc-run-isolation")
        let unused = directory.appendingPathComponent("unused-credential").path
        var environment = ["KEYCHAIN_BACKEND": backend, "KEYCHAIN_FILE_CACHE_SECONDS": "0", "KEYCHAIN_VAULT_TOKEN_CACHE": "off"]
        for variable in credentialVariables { environment[variable] = unused }
        switch backend {
        case "vault":
            let outer = ProcessInfo.processInfo.environment
            guard let address = outer["VAULT_ADDR"], let token = outer["VAULT_TOKEN"] else {
                try? FileManager.default.removeItem(at: directory)
                try skipOrFail("no OpenBao server: run under scripts/with-services.sh, which exports VAULT_ADDR and VAULT_TOKEN")
            }
            environment["VAULT_ADDR"] = address
            environment["VAULT_TOKEN"] = token
            environment["BAO_TOKEN"] = token
            // A client key without its certificate is refused, so the TLS pair stays unset.
            environment["VAULT_CLIENT_KEY"] = nil
            environment["BAO_CLIENT_KEY"] = nil
            environment["KEYCHAIN_VAULT_PREFIX"] = "lkc-test/run-isolation-\(UUID().uuidString.prefix(8).lowercased())"
        case "file":
            environment["KEYCHAIN_FILE_DIR"] = directory.appendingPathComponent("store").path
            environment["KEYCHAIN_FILE_PASSPHRASE"] = "run-isolation-passphrase"
            environment["KEYCHAIN_FILE_PASSPHRASE_FILE"] = nil  // one source at a time
        default:
            break  // the Secret Service: the session bus with-services.sh started
        }
        return Store(environment: environment, directory: directory)
    }
}
