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
                      ["delete", "a", "b", "--json"], ["set", "--label"], ["run", "--env", "X", "s", "a"], ["search", "colour", "red"],
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

    /// An empty input is almost always a broken pipeline upstream: refused, nothing stored,
    /// unless --allow-empty says it is meant.
    @Test func anEmptySecretIsStoredOnlyWithAllowEmpty() throws {
        let service = Self.uniqueService()
        let base = ["--backend", "keyring"]
        defer { _ = try? keychain(base + ["delete", service, "acct"]) }
        for command in ["set", "add"] {
            let refused = try keychain(base + [command, service, "acct"], input: Data())
            #expect(refused.status == 1, "\(command): \(refused.status)")
            #expect(refused.errorText.contains("--allow-empty"), "\(refused.errorText)")
            #expect(try keychain(base + ["get", service, "acct"]).status == CLIExit.notFound, "a refused empty \(command) stored an item")
        }
        try #require(try keychain(base + ["set", service, "acct"], input: Data("kept".utf8)).status == 0)
        #expect(try keychain(base + ["set", service, "acct"], input: Data()).status == 1)
        #expect(try keychain(base + ["get", service, "acct"]).output == Data("kept".utf8), "a refused empty set replaced the secret")
        #expect(try keychain(base + ["set", "--allow-empty", service, "acct"], input: Data()).status == 0)
        let read = try keychain(base + ["get", service, "acct"])
        #expect(read.status == 0 && read.output.isEmpty, "\(read.status) \(read.errorText)")
    }

    /// A value the command's own options take is explained by that command's help.
    @Test(arguments: [["set", "--port", "99999", "server", "account"], ["get", "--protocol", "gopher+", "server", "account"],
                      ["search", "port", "70000"]])
    func aBadOptionValuePointsAtTheCommandsOwnHelp(_ arguments: [String]) throws {
        let result = try keychain(arguments)
        #expect(result.status == 2)
        #expect(result.errorText.hasSuffix("Try 'linux-keychain \(arguments[0]) --help'.\n"), "\(result.errorText)")
    }

    /// `--group` is described as what it does on each command: a filter on get, a destination on set.
    @Test func theGroupOptionsHelpDescribesItsCommand() throws {
        func groupLine(_ command: String) throws -> String {
            let help = try keychain(["help", command]).outputText
            return try #require(help.split(separator: "\n").first { $0.contains("--group GROUP") }.map(String.init), "\(help)")
        }
        for reader in ["get", "delete", "list", "search"] {
            let line = try groupLine(reader)
            #expect(line.contains("only items of access group GROUP") && !line.contains("set and add"), "\(reader): \(line)")
        }
        for writer in ["set", "add"] {
            #expect(try groupLine(writer).contains("write the item into access group GROUP"), "\(writer)")
        }
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

    /// On a terminal `get` ends the line, as `secret-tool lookup` does; a pipe gets the exact bytes.
    @Test func getAddsANewlineOnlyWhenStandardOutputIsATerminal() throws {
        let service = Self.uniqueService()
        let base = ["--backend", "keyring"]
        defer { _ = try? keychain(base + ["delete", service, "alice"]) }
        try #require(try keychain(base + ["set", service, "alice"], input: Data("s3cr3t".utf8)).status == 0)
        #expect(try keychain(base + ["get", service, "alice"]).output == Data("s3cr3t".utf8))
        // stdout alone on a pseudo-terminal; the terminal turns "\n" into "\r\n".
        let driver = """
            import os, pty, subprocess, sys
            master, slave = pty.openpty()
            done = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave)
            os.close(slave)
            seen = b""
            while True:
                try: chunk = os.read(master, 1024)
                except OSError: break
                if not chunk: break
                seen += chunk
            sys.stdout.write(seen.hex())
            sys.exit(done.returncode)
            """
        let onTerminal = try KeychainCLIProcess.run("/usr/bin/env", ["python3", "-c", driver, cli] + base + ["get", service, "alice"])
        #expect(onTerminal.status == 0, "\(onTerminal.errorText)")
        #expect(onTerminal.outputText == Data("s3cr3t\r\n".utf8).map { String(format: "%02x", $0) }.joined(), "\(onTerminal.outputText)")
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

    /// A miss on one class names the item of the other class with that name, and the options
    /// that reach it; the exit status stays "not found".
    @Test func aMissNamesTheItemOfTheOtherClass() throws {
        let name = Self.uniqueService() + ".example"
        let base = ["--backend", "keyring"]
        defer {
            _ = try? keychain(base + ["delete", "--port", "8443", name, "alice"])
            _ = try? keychain(base + ["delete", name, "bob"])
        }
        try #require(try keychain(base + ["set", "--protocol", "https", "--port", "8443", name, "alice"], input: Data("i".utf8)).status == 0)
        try #require(try keychain(base + ["set", name, "bob"], input: Data("g".utf8)).status == 0)

        let generic = try keychain(base + ["get", name, "alice"])
        #expect(generic.status == CLIExit.notFound && generic.output.isEmpty)
        #expect(generic.errorText.contains("no item for service '\(name)' and account 'alice'; an internet password of that server and account exists: name it with --protocol https --port 8443"), "\(generic.errorText)")
        #expect(try keychain(base + ["get", "--protocol", "https", "--port", "8443", name, "alice"]).output == Data("i".utf8))

        let internet = try keychain(base + ["get", "--internet", name, "bob"])
        #expect(internet.status == CLIExit.notFound)
        #expect(internet.errorText.contains("a generic password of that service and account exists: leave out --internet"), "\(internet.errorText)")
        // Nothing of either class: the plain miss.
        let neither = try keychain(base + ["get", name, "carol"])
        #expect(neither.status == CLIExit.notFound && !neither.errorText.contains("exists"), "\(neither.errorText)")
    }

    /// `get --json`: the fields of `list --json` and the secret get prints anyway, as text when
    /// it is UTF-8 and in base64 otherwise.
    @Test func getJSONHasTheAttributesAndTheSecret() throws {
        let name = Self.uniqueService()
        let base = ["--backend", "keyring"]
        defer {
            _ = try? keychain(base + ["delete", name, "text"])
            _ = try? keychain(base + ["delete", "--path", "/v1", name, "binary"])
        }
        let text = "quote \" backslash \\ newline \n tab \t bell \u{7} ünïcode"
        try #require(try keychain(base + ["set", "--label", "Deploy key", name, "text"], input: Data(text.utf8)).status == 0)
        let binary = Data([0xFF, 0x00, 0x61, 0x62, 0xC3])
        try #require(try keychain(base + ["set", "--protocol", "https", "--port", "8443", "--path", "/v1", name, "binary"], input: binary).status == 0)

        func object(_ arguments: [String]) throws -> [String: Any] {
            let result = try keychain(base + ["get", "--json"] + arguments)
            try #require(result.status == 0, "\(result.errorText)")
            return try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any], "\(result.outputText)")
        }
        let generic = try object([name, "text"])
        #expect(generic["secret"] as? String == text && generic["secret-encoding"] as? String == "utf-8", "\(generic)")
        #expect(generic["class"] as? String == "generic" && generic["service"] as? String == name && generic["account"] as? String == "text")
        #expect(generic["label"] as? String == "Deploy key" && generic["group"] as? String == "" && generic["modified"] is String)
        let listed = try Self.jsonRows(try keychain(base + ["list", "--json", name])).first { $0["account"] as? String == "text" }
        let listedKeys = Set(listed.map { Array($0.keys) } ?? [])
        #expect(Set(generic.keys).subtracting(["secret", "secret-encoding"]) == listedKeys, "\(generic) \(listedKeys)")

        let internet = try object(["--path", "/v1", name, "binary"])
        #expect(internet["secret-encoding"] as? String == "base64")
        #expect((internet["secret"] as? String).flatMap { Data(base64Encoded: $0) } == binary, "\(internet)")
        #expect(internet["protocol"] as? String == "https" && internet["port"] as? Int == 8443 && internet["path"] as? String == "/v1")

        let missing = try keychain(base + ["get", "--json", name, "nobody"])
        #expect(missing.status == CLIExit.notFound && missing.output.isEmpty)
    }

    @Test func backendsJSONDescribesEachBackendAutoAndWhatIsInEffect() throws {
        let result = try keychain(["backends", "--json"])
        #expect(result.status == 0, "\(result.errorText)")
        let report = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any], "\(result.outputText)")
        let backends = try #require(report["backends"] as? [[String: Any]])
        #expect(Set(backends.compactMap { $0["name"] as? String }).isSuperset(of: ["secret-service", "keyring", "file", "vault", "memory"]))
        let keyring = try #require(backends.first { $0["name"] as? String == "keyring" })
        #expect(keyring["state"] as? String == "usable" && keyring["usable"] as? Bool == true && keyring["explanation"] is String)
        let memory = try #require(backends.first { $0["name"] as? String == "memory" })
        #expect(memory["state"] as? String == "refused" && memory["usable"] as? Bool == false)
        #expect(backends.allSatisfy { $0["chosen-by-auto"] is Bool })
        let auto = try #require(report["auto"] as? [String: Any])
        #expect(auto["backend"] is String && auto["locked"] as? Bool == false, "\(auto)")
        let inEffect = try #require(report["in-effect"] as? [String: Any])
        #expect(inEffect["backend"] is String && inEffect["source"] is String, "\(inEffect)")

        let forced = try JSONSerialization.jsonObject(with: try keychain(["--backend", "file", "backends", "--json"]).output) as? [String: Any]
        #expect((forced?["in-effect"] as? [String: Any])?["source"] as? String == "from --backend")
        // Nothing usable: still the whole object on stdout, then the error and exit 6.
        let nothing = try keychain(["backends", "--json"], environment: [
            "KEYCHAIN_LIBSECRET_PATH": "/nonexistent/libsecret-1.so.0", "KEYCHAIN_KEYRING_SIMULATE_REFUSAL": "ENOSYS",
            "KEYCHAIN_FILE_PASSPHRASE": "", "KEYCHAIN_FILE_PASSPHRASE_FILE": "", "VAULT_ADDR": "", "BAO_ADDR": "",
        ])
        #expect(nothing.status == CLIExit.unavailable)
        let empty = try #require(try JSONSerialization.jsonObject(with: nothing.output) as? [String: Any], "\(nothing.outputText)")
        #expect((empty["auto"] as? [String: Any])?["backend"] is NSNull, "\(empty)")
        #expect((empty["backends"] as? [[String: Any]])?.allSatisfy { $0["usable"] as? Bool == false } == true)
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
