import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// The man page and the completion scripts come from the command table: each names every
/// command, and each is valid for its reader (groff, bash, zsh, fish where installed).
@Suite("linux-keychain man page and completions")
struct GeneratedDocumentationTests {
    let cli: String
    static let commands = ["set", "add", "get", "delete", "list", "search", "run", "backends", "passwd", "completion", "help"]

    init() throws {
        cli = try builtCLI()
    }

    @Test func theManPageRendersWithoutWarningsAndCoversEveryCommand() throws {
        let page = try KeychainCLIProcess.run(cli, ["manpage"])
        #expect(page.status == 0)
        #expect(page.outputText.hasPrefix(".TH LINUX-KEYCHAIN 1 "))
        for command in Self.commands { #expect(page.outputText.contains(".B linux\\-keychain \(command)"), "man page lacks \(command)") }
        for section in ["EXIT STATUS", "ENVIRONMENT", "EXAMPLES"] { #expect(page.outputText.contains(".SH \(section)")) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        let rendered = try Self.shell("linux-keychain manpage | groff -man -Tutf8 -ww -z", cli: cli)
        #expect(rendered.status == 0 && rendered.errorText.isEmpty, "groff: \(rendered.errorText)")
    }

    /// FILES names where the configuration, the recorded choice and the file store are; the
    /// header carries the version's date, not an empty string.
    @Test func theManPageHasADateAndAFilesSection() throws {
        let page = try KeychainCLIProcess.run(cli, ["manpage"]).outputText
        let header = try #require(page.split(separator: "\n").first.map(String.init))
        #expect(header.firstMatch(of: try Regex(#"^\.TH LINUX-KEYCHAIN 1 "\d{4}-\d{2}-\d{2}" "#)) != nil, "\(header)")
        let files = try #require(page.range(of: ".SH FILES\n"), "the man page has no FILES section")
        let section = page[files.upperBound...].components(separatedBy: ".SH ").first ?? ""
        for path in ["linux\\-keychain/config", "/etc/linux\\-keychain/config", "linux\\-keychain/backend", "~/.local/share/linux\\-keychain"] {
            #expect(section.contains(path), "FILES lacks \(path): \(section)")
        }
    }

    /// One install path per shell: what `help completion` says is what docs/cli.md says.
    @Test func theCompletionInstallPathsAreTheSameInTheHelpAndInTheDocs() throws {
        let help = try KeychainCLIProcess.run(cli, ["help", "completion"]).outputText
        let normalizedHelp = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/cli.md")
        let lines = try String(contentsOf: docs, encoding: .utf8).split(separator: "\n")
        for shell in ["bash", "zsh", "fish"] {
            let documented = lines.filter { $0.hasPrefix("linux-keychain completion \(shell) ") }
            #expect(documented.count == 1, "docs/cli.md installs the \(shell) completion \(documented.count) times")
            for line in documented {
                let normalized = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                #expect(normalizedHelp.contains(normalized), "help completion does not say \(normalized): \(help)")
            }
        }
    }

    @Test(arguments: [("bash", "bash -n"), ("zsh", "zsh -n"), ("fish", "fish --no-execute")])
    func eachCompletionScriptParsesAndNamesEveryCommand(_ shell: String, _ check: String) throws {
        let script = try KeychainCLIProcess.run(cli, ["completion", shell])
        #expect(script.status == 0, "\(script.errorText)")
        for command in Self.commands { #expect(script.outputText.contains(command), "\(shell) completion lacks \(command)") }
        #expect(script.outputText.contains("label") && script.outputText.contains("protocol"))
        let binary = String(check.split(separator: " ")[0])
        guard let path = ["/usr/bin/", "/bin/"].map({ $0 + binary }).first(where: FileManager.default.isExecutableFile) else {
            return // the shell is not installed; its script's content is checked above
        }
        let parsed = try Self.shell("linux-keychain completion \(shell) | \(path) \(check.split(separator: " ").dropFirst().joined(separator: " "))", cli: cli)
        #expect(parsed.status == 0, "\(shell) rejects its completion script: \(parsed.errorText)")
    }

    @Test func bashCompletionOffersCommandsAndOptions() throws {
        let script = """
            source <(linux-keychain completion bash)
            [[ $(complete -p linux-keychain) == "complete -F _linux_keychain linux-keychain" ]] || echo "not registered"
            COMP_WORDS=(linux-keychain se); COMP_CWORD=1; _linux_keychain; echo "${COMPREPLY[*]}"
            COMP_WORDS=(linux-keychain set --la); COMP_CWORD=2; _linux_keychain; echo "${COMPREPLY[*]}"
            COMP_WORDS=(linux-keychain --backend ke); COMP_CWORD=2; _linux_keychain; echo "${COMPREPLY[*]}"
            """
        let result = try Self.shell(script, cli: cli)
        #expect(result.outputText == "set search\n--label\nkeyring\n", "\(result.outputText) \(result.errorText)")
    }

    /// Runs `script` in bash with the CLI's directory first on PATH.
    static func shell(_ script: String, cli: String) throws -> KeychainCLIProcess.Result {
        let directory = URL(fileURLWithPath: cli).deletingLastPathComponent().path
        let path = directory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try KeychainCLIProcess.run("/bin/bash", ["-c", script], environment: ["PATH": path])
    }
}
