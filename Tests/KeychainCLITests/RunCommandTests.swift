import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// `linux-keychain run`: secrets reach the command's environment and nothing else.
@Suite("linux-keychain run")
struct RunCommandTests {
    let cli: String
    let service = "cli-run-\(UUID().uuidString.prefix(8))"

    init() throws {
        cli = try builtCLI()
    }

    func keychain(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(cli, ["--backend", "keyring"] + arguments, input: input, environment: environment)
    }

    func withItems(_ body: () throws -> Void) throws {
        defer {
            _ = try? keychain(["delete", service, "alice"])
            _ = try? keychain(["delete", service, "bob"])
        }
        try #require(try keychain(["set", service, "alice"], input: Data("alice-secret".utf8)).status == 0)
        try #require(try keychain(["set", service, "bob"], input: Data("bob secret with spaces".utf8)).status == 0)
        try body()
    }

    @Test func theCommandSeesExactlyTheNamedVariablesAndTheRestOfTheEnvironment() throws {
        try withItems {
            let script = #"printf '%s|%s|%s' "$FIRST" "$SECOND" "$INHERITED"; tr '\0' ' ' < /proc/$$/cmdline"#
            let result = try keychain(["run", "--env", "FIRST", service, "alice", "--env", "SECOND", service, "bob",
                                       "--", "sh", "-c", script], environment: ["INHERITED": "kept"])
            #expect(result.status == 0, "\(result.errorText)")
            let output = result.outputText
            #expect(output.hasPrefix("alice-secret|bob secret with spaces|kept"), "\(output)")
            // The command line of the command holds no secret.
            let commandLine = output.dropFirst("alice-secret|bob secret with spaces|kept".count)
            #expect(!commandLine.contains("secret"), "command line: \(commandLine)")
        }
    }

    /// The stores' credentials are removed before the named variables are set, so a secret
    /// asked for under a credential's name still arrives.
    @Test func aVariableNamedByEnvIsSetEvenWhenItIsACredentialsName() throws {
        try withItems {
            let script = #"printf '%s|%s' "$VAULT_TOKEN" "${BAO_TOKEN-removed}""#
            let result = try keychain(["run", "--env", "VAULT_TOKEN", service, "alice", "--", "sh", "-c", script],
                                      environment: ["VAULT_TOKEN": "outer-token", "BAO_TOKEN": "outer-token"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.outputText == "alice-secret|removed", "\(result.outputText)")
        }
    }

    @Test func theExitStatusIsTheCommands() throws {
        try withItems {
            let result = try keychain(["run", "--env", "TOKEN", service, "alice", "--", "sh", "-c", "exit 42"])
            #expect(result.status == 42)
            // Options after -- belong to the command.
            let help = try keychain(["run", "--env", "TOKEN", service, "alice", "--", "sh", "-c", "echo \"$0\"", "--help"])
            #expect(help.status == 0 && help.outputText == "--help\n")
        }
    }

    @Test func aMissingItemFailsBeforeAnythingRuns() throws {
        try withItems {
            let marker = scratchPath("keychain-run")
            defer { try? FileManager.default.removeItem(at: marker) }
            let result = try keychain(["run", "--env", "A", service, "alice", "--env", "B", service, "nobody",
                                       "--", "touch", marker.path])
            #expect(result.status == CLIExit.notFound)
            #expect(result.errorText.contains("no item for service '\(service)' and account 'nobody'"))
            #expect(!FileManager.default.fileExists(atPath: marker.path), "the command ran although an item was missing")
        }
    }

    /// A scratch directory of this user's, mode 0700, removed after `body`.
    func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lkc-env-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    func envFile(_ text: String, in directory: URL, mode: Int = 0o600) throws -> String {
        let file = directory.appendingPathComponent("app-\(UUID().uuidString.prefix(4)).env")
        try text.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        return file.path
    }

    /// The documented line format: comments, blank lines, `export`, blanks, quotes, a comment
    /// after a value, and references to both classes.
    @Test func anEnvFileSetsEveryVariableItNames() throws {
        let server = "\(service).example"
        defer {
            _ = try? keychain(["delete", "--port", "8443", server, "bob@example.org"])
            _ = try? keychain(["delete", "web app", "admin"])
        }
        try #require(try keychain(["set", "--protocol", "https", "--port", "8443", server, "bob@example.org"], input: Data("web-token".utf8)).status == 0)
        try #require(try keychain(["set", "web app", "admin"], input: Data("p@ss wörd".utf8)).status == 0)
        try withItems {
            try withDirectory { directory in
                let file = try envFile("""
                    # the app's secrets
                    ALICE=keychain:\(service)/alice

                      export BOB = keychain:\(service)/bob   # a comment after the value
                    WEB="keychain+https://bob@example.org@\(server):8443"\r
                    ANY_PROTOCOL='keychain+internet://bob@example.org@\(server)'
                    SPACED=keychain:web app/admin
                    """, in: directory)
                let script = #"printf '%s|%s|%s|%s|%s' "$ALICE" "$BOB" "$WEB" "$ANY_PROTOCOL" "$SPACED""#
                let result = try keychain(["run", "--env-file", file, "--", "sh", "-c", script])
                #expect(result.status == 0, "\(result.errorText)")
                #expect(result.outputText == "alice-secret|bob secret with spaces|web-token|web-token|p@ss wörd", "\(result.outputText)")
            }
        }
    }

    /// `--env-ref` names an internet password on the command line, with the same references.
    @Test func envRefReachesInternetPasswords() throws {
        let server = "\(service).example"
        defer { _ = try? keychain(["delete", "--protocol", "ssh", server, "git"]) }
        try #require(try keychain(["set", "--protocol", "ssh", "--path", "/repo", server, "git"], input: Data("deploy-key".utf8)).status == 0)
        try withItems {
            let result = try keychain(["run", "--env-ref", "KEY", "keychain+ssh://git@\(server)/repo", "--env", "A", service, "alice",
                                       "--", "sh", "-c", #"printf '%s|%s' "$KEY" "$A""#])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.outputText == "deploy-key|alice-secret")
            let wrongPath = try keychain(["run", "--env-ref", "KEY", "keychain+ssh://git@\(server)/other", "--", "true"])
            #expect(wrongPath.status == CLIExit.notFound, "\(wrongPath.errorText)")
            // --env names a generic password; the miss names the internet password as a reference.
            let generic = try keychain(["run", "--env", "KEY", server, "git", "--", "true"])
            #expect(generic.status == CLIExit.notFound)
            #expect(generic.errorText.contains("an internet password of that server and account exists: keychain+ssh://git@\(server)/repo (KEY, from --env KEY)"),
                    "\(generic.errorText)")
            let bad = try keychain(["run", "--env-ref", "KEY", "keychain+ssh://\(server)", "--", "true"])
            #expect(bad.status == 2 && bad.errorText.contains("--env-ref KEY: the reference has no account"), "\(bad.errorText)")
        }
    }

    /// Whoever could write the file could point a variable at another secret.
    @Test func anEnvFileOthersCouldWriteIsRefused() throws {
        try withItems {
            try withDirectory { directory in
                let marker = directory.appendingPathComponent("ran")
                for mode in [0o620, 0o602] {
                    let file = try envFile("A=keychain:\(service)/alice\n", in: directory, mode: mode)
                    let result = try keychain(["run", "--env-file", file, "--", "touch", marker.path])
                    #expect(result.status == 1, "mode \(String(mode, radix: 8)): \(result.status)")
                    #expect(result.errorText.contains("is writable by its group or by others"), "\(result.errorText)")
                }
                if geteuid() == 0 {
                    let file = try envFile("A=keychain:\(service)/alice\n", in: directory)
                    try #require(chown(file, 65534, 65534) == 0)
                    let result = try keychain(["run", "--env-file", file, "--", "touch", marker.path])
                    #expect(result.status == 1 && result.errorText.contains("is owned by uid 65534"), "\(result.errorText)")
                }
                #expect(!FileManager.default.fileExists(atPath: marker.path), "the command ran with an untrusted env file")
            }
        }
    }

    /// Every mistake names the file and line, and no value is repeated: a plain value may be a
    /// secret pasted into the wrong place.
    @Test(arguments: [
        ("A=keychain:S/alice\nTOKEN=hunter2-pasted-secret\n", ":2: the value is not a keychain reference"),
        ("A=keychain:S/alice\nhunter2base64==\n", ":2: the value is not a keychain reference"),
        ("hunter2 pasted=\n", ":1: the text before '=' is not an environment variable name"),
        ("# fine\n\nA=keychain:S/alice\nB keychain:S/bob\n", ":4: expected NAME="),
        ("A=keychain:S/alice\nA=keychain:S/bob\n", ":2: A is given twice, also on line 1"),
        ("1A=keychain:S/alice\n", ":1: the text before '=' is not an environment variable name"),
        ("A=keychain:hunter2-no-slash\n", ":1: the value of A has no '/' between service and account"),
        ("A=\"keychain:S/alice\n", ":1: the value has an opening \" with no closing one"),
        ("A=keychain+https://alice@host:99999\n", ":1: the value of A has a port that is not a number"),
    ])
    func envFileMistakesNameTheLineAndNeverTheValue(_ text: String, _ expected: String) throws {
        try withItems {
            try withDirectory { directory in
                let file = try envFile(text.replacingOccurrences(of: "keychain:S/", with: "keychain:\(service)/"), in: directory)
                let result = try keychain(["run", "--env-file", file, "--", "true"])
                #expect(result.status == 1, "\(result.status): \(result.errorText)")
                #expect(result.errorText.contains(file + expected), "\(result.errorText)")
                #expect(!result.errorText.contains("hunter2"), "a value was repeated: \(result.errorText)")
                #expect(result.errorText.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func aMissingItemOfAnEnvFileNamesItsLineAndNothingRuns() throws {
        try withItems {
            try withDirectory { directory in
                let marker = directory.appendingPathComponent("ran")
                let file = try envFile("A=keychain:\(service)/alice\nB=keychain:\(service)/nobody\n", in: directory)
                let result = try keychain(["run", "--env-file", file, "--", "touch", marker.path])
                #expect(result.status == CLIExit.notFound)
                #expect(result.errorText.contains("no item for service '\(service)' and account 'nobody'") && result.errorText.contains("(B, from \(file):2)"),
                        "\(result.errorText)")
                #expect(!FileManager.default.fileExists(atPath: marker.path))
                // A variable named twice across --env and the file is refused before any store is read.
                let twice = try keychain(["run", "--env", "A", service, "bob", "--env-file", file, "--", "true"])
                #expect(twice.status == 1 && twice.errorText.contains("A is given twice (--env A and \(file):1)"), "\(twice.errorText)")
            }
        }
    }

    @Test func aCommandThatCannotBeFoundExits127() throws {
        try withItems {
            let result = try keychain(["run", "--env", "A", service, "alice", "--", "/nonexistent/command"])
            #expect(result.status == 127)
            #expect(!result.errorText.contains("alice-secret"))
        }
    }
}
