import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// The CLI's contract with people and scripts: help and version on stdout, one-line errors,
/// documented exit statuses, and the memory backend refused. Item commands run against the
/// real kernel keyring (present wherever the tests run); backend-specific behaviour (exact
/// bytes across processes) is in each backend's tests.
@Suite("linux-keychain CLI")
struct CLITests {
    let cli: String

    init() throws {
        cli = try builtCLI()
    }

    func keychain(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(cli, arguments, input: input, environment: environment)
    }

    @Test(arguments: [["--help"], ["-h"], ["help"]])
    func helpGoesToStandardOutputWithStatusZero(_ arguments: [String]) throws {
        let result = try keychain(arguments)
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty)
        #expect(result.outputText.contains("usage: linux-keychain "))
        for command in ["set", "get", "delete", "list", "search", "run", "backends", "completion"] {
            #expect(result.outputText.contains("\n  \(command) "), "the help does not list \(command)")
        }
        for status in 0...6 { #expect(result.outputText.contains("\n  \(status)  "), "the help does not document exit status \(status)") }
    }

    @Test(arguments: [["help", "set"], ["set", "--help"], ["set", "-h"], ["--backend", "keyring", "set", "a", "--help"]])
    func everyCommandHasItsOwnHelp(_ arguments: [String]) throws {
        let result = try keychain(arguments)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.outputText.hasPrefix("usage: linux-keychain set "))
        for option in ["--label", "--comment", "--internet", "--protocol", "--port", "--path", "--backend"] {
            #expect(result.outputText.contains(option), "set's help lacks \(option)")
        }
    }

    /// `linux-keychain 0.1.0 (commit 0123abcd4567)`: the commit Package.swift was given
    /// (LINUX_KEYCHAIN_COMMIT), or "unknown" when the build had none.
    @Test func versionIsOneLineOnStandardOutputWithTheCommitAndMatchesTheManPage() throws {
        let result = try keychain(["--version"])
        #expect(result.status == 0)
        let version = result.outputText
        let pattern = #"^linux-keychain (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,40}(-dirty)?|unknown)\)\n$"#
        let match = try #require(version.firstMatch(of: try Regex(pattern)), "--version printed \(version)")
        let release = try #require(match.output[1].substring)
        let manual = try keychain(["manpage"])
        #expect(manual.outputText.contains("\"linux-keychain \(release)\""))
    }

    @Test(arguments: [[], ["get", "only-service"], ["frobnicate"], ["set", "a", "b", "c"], ["--bogus", "list"],
                      ["get", "a", "b", "--json"], ["set", "--label"], ["run", "--env", "X", "s", "a"], ["search", "colour", "red"],
                      ["set", "--port", "http", "server", "account"]])
    func usageErrorsAreOneLineAndAHintWithStatusTwo(_ arguments: [String]) throws {
        let result = try keychain(arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        let lines = result.errorText.split(separator: "\n")
        #expect(lines.count == 2, "stderr: \(result.errorText)")
        #expect(lines.first?.hasPrefix("linux-keychain: ") == true)
        #expect(!result.errorText.contains("linux-keychain: linux-keychain:"))
        #expect(lines.last?.hasPrefix("Try 'linux-keychain ") == true)
    }

    @Test func aMistypedCommandSuggestsTheNearestOne() throws {
        for (typed, meant) in [("gte", "get"), ("lsit", "list"), ("delte", "delete"), ("backend", "backends"), ("migrat", "migrate")] {
            let result = try keychain([typed, "a", "b"])
            #expect(result.status == 2, "\(typed)")
            #expect(result.errorText.contains("unknown command '\(typed)'; did you mean '\(meant)'?"), "\(result.errorText)")
        }
        // A word that is no near miss gets no guess.
        let far = try keychain(["frobnicate"])
        #expect(far.status == 2)
        #expect(far.errorText.contains("unknown command 'frobnicate'") && !far.errorText.contains("did you mean"), "\(far.errorText)")
    }

    @Test func unknownBackendFailsNamingTheValidOnes() throws {
        let result = try keychain(["get", "a", "b"], environment: ["KEYCHAIN_BACKEND": "nonsense"])
        #expect(result.status == 1)
        #expect(result.errorText.contains("'nonsense'"))
        for name in ["auto", "secret-service", "keyring", "file", "vault"] { #expect(result.errorText.contains(name)) }
    }

    @Test(arguments: [["--backend", "memory", "set", "svc", "acct"], ["list"]])
    func theMemoryBackendIsRefusedBecauseItKeepsNothing(_ arguments: [String]) throws {
        let result = try keychain(arguments, input: Data("x".utf8), environment: ["KEYCHAIN_BACKEND": "memory"])
        #expect(result.status == CLIExit.unavailable)
        #expect(result.errorText.contains("'memory' backend keeps secrets only inside one process"), "\(result.errorText)")
        #expect(result.errorText.split(separator: "\n").count == 1)
    }

    @Test func anUnavailableBackendHasItsOwnExitStatus() throws {
        let result = try keychain(["--backend", "secret-service", "get", "a", "b"],
                                  environment: ["KEYCHAIN_LIBSECRET_PATH": "/nonexistent/libsecret-1.so.0"])
        #expect(result.status == CLIExit.unavailable, "\(result.errorText)")
    }

    @Test func backendsExitsNonZeroWhenNothingIsUsable() throws {
        let usable = try keychain(["backends"])
        #expect(usable.status == 0, "\(usable.errorText)")
        #expect(usable.outputText.contains("auto picks: "))
        #expect(usable.outputText.contains("memory") && usable.outputText.contains("refused"))
        // Every backend made unusable: no libsecret, a kernel that refuses keyctl (debug builds
        // honour the simulation), no passphrase and no Vault server.
        let nothing = try keychain(["backends"], environment: [
            "KEYCHAIN_LIBSECRET_PATH": "/nonexistent/libsecret-1.so.0", "KEYCHAIN_KEYRING_SIMULATE_REFUSAL": "ENOSYS",
            "KEYCHAIN_FILE_PASSPHRASE": "", "KEYCHAIN_FILE_PASSPHRASE_FILE": "", "VAULT_ADDR": "", "BAO_ADDR": "",
        ])
        #expect(nothing.status == CLIExit.unavailable, "backends: \(nothing.outputText) \(nothing.errorText)")
        #expect(nothing.outputText.contains("auto picks: nothing"))
    }

    @Test func backendOptionAutoGoesWhereTheRecordedChoiceSays() throws {
        // `--backend auto` means what KEYCHAIN_BACKEND=auto means: the pins and the record
        // first. A record naming a store that cannot be used here is an error, never auto's
        // first store instead, and the error does not repeat what the record holds.
        let state = scratchPath("lkc-cli-auto").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/linux-keychain", withIntermediateDirectories: true)
        try "no-such-store\n".write(toFile: state + "/linux-keychain/backend", atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": state, "XDG_CONFIG_HOME": state + "/config",
                           "KEYCHAIN_SYSTEM_CONFIG": state + "/no-system-file"]
        let listed = try KeychainCLIProcess.run(cli, ["--backend", "auto", "list", "--json"], environment: environment)
        #expect(listed.status == 1, "listed another store: \(listed.outputText)")
        #expect(listed.errorText.contains("names no backend this program has"), "\(listed.errorText)")
        #expect(!listed.errorText.contains("no-such-store"), "the record's content was repeated: \(listed.errorText)")
        let report = try KeychainCLIProcess.run(cli, ["--backend", "auto", "backends"], environment: environment)
        #expect(report.outputText.contains("in effect: nothing usable"), "\(report.outputText)")
    }

    @Test func aRecordOfAutoOrMemoryIsAnErrorNotACrash() throws {
        let state = scratchPath("lkc-cli-record").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state + "/linux-keychain", withIntermediateDirectories: true)
        let environment = ["XDG_STATE_HOME": state, "XDG_CONFIG_HOME": state + "/config",
                           "KEYCHAIN_SYSTEM_CONFIG": state + "/no-system-file", "KEYCHAIN_BACKEND": ""]
        for name in ["auto", "memory"] {
            try "\(name)\n".write(toFile: state + "/linux-keychain/backend", atomically: true, encoding: .utf8)
            let listed = try KeychainCLIProcess.run(cli, ["list"], environment: environment)
            #expect(listed.status == 1, "\(name): \(listed.status) \(listed.errorText)")
            #expect(listed.errorText.contains("recorded keychain backend"), "\(listed.errorText)")
            let report = try KeychainCLIProcess.run(cli, ["backends"], environment: environment)
            #expect(report.status == 0, "\(name): \(report.status)")
            #expect(report.outputText.contains("in effect: nothing usable"), "\(report.outputText)")
        }
        let pinned = try KeychainCLIProcess.run(cli, ["pin", "memory"], environment: environment)
        #expect(pinned.status != 0)
        #expect(!FileManager.default.fileExists(atPath: state + "/config/linux-keychain/config"))
    }

    /// A full or closed stream is a failure with a message, never a crash: `FileHandle.write`
    /// would trap with a backtrace (exit 132) here.
    @Test func aStreamThatCannotBeWrittenIsAFailureNotACrash() throws {
        func run(_ arguments: [String], stdoutToFull: Bool) throws -> (status: Int32, errorText: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: cli)
            process.arguments = arguments
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let errors = Pipe()
            process.standardOutput = stdoutToFull ? full : FileHandle.nullDevice
            process.standardError = stdoutToFull ? errors : full
            try process.run()
            // Only a pipe the child holds ever reaches its end.
            let errorText = stdoutToFull ? String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
            process.waitUntilExit()
            return (process.terminationStatus, errorText)
        }
        let help = try run(["--help"], stdoutToFull: true)
        #expect(help.status == 1, "help to /dev/full: status \(help.status), \(help.errorText)")
        #expect(help.errorText.contains("could not write to standard output"), "\(help.errorText)")
        let usage = try run(["no-such-command"], stdoutToFull: false)
        #expect(usage.status == 2, "a usage error with stderr on /dev/full: status \(usage.status)")
    }

    @Test func backendsNamesAutomaticChoiceInOneParenthesis() throws {
        let state = scratchPath("lkc-cli-fresh").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let environment = ["XDG_STATE_HOME": state, "XDG_CONFIG_HOME": state + "/config",
                           "KEYCHAIN_SYSTEM_CONFIG": state + "/no-system-file", "KEYCHAIN_BACKEND": ""]
        let report = try KeychainCLIProcess.run(cli, ["backends"], environment: environment)
        let line = report.outputText.split(separator: "\n").first { $0.hasPrefix("in effect: ") } ?? ""
        #expect(line.hasSuffix("(automatic: nothing pinned or recorded yet)"), "\(report.outputText)")
    }

    @Test func missingItemIsOneLineAndExitStatusThree() throws {
        let service = Self.uniqueService()
        let result = try keychain(["--backend", "keyring", "get", service, "nobody"])
        #expect(result.status == CLIExit.notFound)
        #expect(result.output.isEmpty)
        #expect(result.errorText.split(separator: "\n").count == 1)
        #expect(result.errorText.contains("no item for service '\(service)' and account 'nobody'"), "\(result.errorText)")
    }

    @Test func genericPasswordWithLabelAndCommentRoundTrips() throws {
        let service = Self.uniqueService()
        defer { _ = try? keychain(["--backend", "keyring", "delete", service, "alice"]) }
        let set = try keychain(["--backend", "keyring", "set", "--label", "Deploy key", "--comment=from CI", service, "alice"],
                               input: Data("s3cr3t\n".utf8))
        #expect(set.status == 0, "\(set.errorText)")
        let get = try keychain(["--backend", "keyring", "get", service, "alice"])
        #expect(get.output == Data("s3cr3t\n".utf8))

        let rows = try Self.jsonRows(try keychain(["--backend", "keyring", "list", "--json", service]))
        #expect(rows.count == 1)
        #expect(rows.first?["label"] as? String == "Deploy key")
        #expect(rows.first?["comment"] as? String == "from CI")
        #expect(rows.first?["class"] as? String == "generic")

        let found = try Self.jsonRows(try keychain(["--backend", "keyring", "search", "--json", "service", service, "label", "Deploy key"]))
        #expect(found.map { $0["account"] as? String } == ["alice"])
        let none = try keychain(["--backend", "keyring", "search", "service", service, "label", "Other"])
        #expect(none.status == 0 && none.output.isEmpty)

        #expect(try keychain(["--backend", "keyring", "delete", service, "alice"]).status == 0)
        #expect(try keychain(["--backend", "keyring", "get", service, "alice"]).status == CLIExit.notFound)
    }

    @Test func internetPasswordsByServerAccountProtocolPortAndPath() throws {
        let server = Self.uniqueService() + ".example.com"
        let base = ["--backend", "keyring"]
        defer {
            _ = try? keychain(base + ["delete", "--protocol", "https", "--port", "8443", server, "bob"])
            _ = try? keychain(base + ["delete", "--protocol", "https", "--port", "443", "--path", "/api", server, "bob"])
        }
        #expect(try keychain(base + ["set", "--protocol", "https", "--port", "8443", server, "bob"], input: Data("one".utf8)).status == 0)
        #expect(try keychain(base + ["add", "--protocol", "https", "--port", "443", "--path", "/api", server, "bob"],
                             input: Data("two".utf8)).status == 0)
        #expect(try keychain(base + ["get", "--port", "8443", server, "bob"]).output == Data("one".utf8))
        #expect(try keychain(base + ["get", "--path", "/api", server, "bob"]).output == Data("two".utf8))
        // Two items match server and account alone: a get must not pick one at random.
        let ambiguous = try keychain(base + ["get", "--internet", server, "bob"])
        #expect(ambiguous.status == 1 && ambiguous.errorText.contains("2 items match"), "\(ambiguous.errorText)")
        // A generic password of that name does not exist: the classes are apart.
        #expect(try keychain(base + ["get", server, "bob"]).status == CLIExit.notFound)

        let rows = try Self.jsonRows(try keychain(base + ["list", "--json", server]))
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0["class"] as? String == "internet" && $0["protocol"] as? String == "https" })
        #expect(Set(rows.compactMap { $0["port"] as? Int }) == [443, 8443])
        let table = try keychain(base + ["list", server])
        #expect(table.outputText.contains("https://\(server):443/api"), "\(table.outputText)")

        #expect(try keychain(base + ["delete", "-i", "--port", "8443", server, "bob"]).status == 0)
        #expect(try keychain(base + ["get", "--internet", server, "bob"]).output == Data("two".utf8))
    }

    @Test func listShowsBothClasses() throws {
        let name = Self.uniqueService()
        let base = ["--backend", "keyring"]
        defer {
            _ = try? keychain(base + ["delete", name, "carol"])
            _ = try? keychain(base + ["delete", "--internet", name, "carol"])
        }
        #expect(try keychain(base + ["set", name, "carol"], input: Data("g".utf8)).status == 0)
        #expect(try keychain(base + ["set", "--internet", name, "carol"], input: Data("i".utf8)).status == 0)
        let everything = try Self.jsonRows(try keychain(base + ["list", "--json"]))
        let ours = everything.filter { $0["service"] as? String == name || $0["server"] as? String == name }
        #expect(ours.compactMap { $0["class"] as? String }.sorted() == ["generic", "internet"])
        let named = try Self.jsonRows(try keychain(base + ["list", "--json", name]))
        #expect(named.count == 2)
    }

    static func uniqueService() -> String { "cli-test-\(UUID().uuidString.prefix(8))" }

    static func jsonRows(_ result: KeychainCLIProcess.Result) throws -> [[String: Any]] {
        try #require(result.status == 0, "\(result.errorText)")
        return try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]], "\(result.outputText)")
    }
}
