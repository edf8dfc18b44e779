import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import Testing

/// The passphrase prompt on a real pseudo-terminal: the CLI runs as the session leader of a
/// pty (Python's `pty.fork`), with no passphrase variable set, and a driver answers the prompts.
@Suite("file backend: terminal prompt")
struct TerminalPromptTests {
    /// Answers each prompt in `dialogue` in turn; returns the CLI's exit status and the transcript.
    private func converse(_ cli: CLIStore, _ arguments: [String], _ dialogue: [(prompt: String, answer: String)]) throws -> (status: Int32, transcript: String) {
        let driver = """
        import os, pty, select, sys, json, termios, time
        argv, dialogue = json.loads(sys.argv[1]), json.loads(sys.argv[2])
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(argv[0], argv)
        seen = b""
        def read_until(text):
            global seen
            while text.encode() not in seen:
                ready, _, _ = select.select([fd], [], [], 30)
                if not ready:
                    sys.stderr.write("timed out waiting for %r; transcript: %r\\n" % (text, seen)); os._exit(90)
                try: chunk = os.read(fd, 1024)
                except OSError: chunk = b""
                if not chunk:
                    sys.stderr.write("ended before %r; transcript: %r\\n" % (text, seen)); os._exit(91)
                seen += chunk
            seen = seen[seen.index(text.encode()) + len(text):]
        for prompt, answer in dialogue:
            read_until(prompt)
            # Answer once echo is off, as a person would after the prompt; the master side of a
            # Linux pty reports the terminal's settings.
            for _ in range(600):
                if not termios.tcgetattr(fd)[3] & termios.ECHO: break
                time.sleep(0.05)
            else:
                sys.stderr.write("echo stayed on at %r\\n" % prompt); os._exit(92)
            os.write(fd, answer.encode() + b"\\n")
        rest = b""
        while True:
            try: chunk = os.read(fd, 1024)
            except OSError: break
            if not chunk: break
            rest += chunk
        sys.stdout.write(rest.decode(errors="replace"))
        _, status = os.waitpid(pid, 0)
        os._exit(os.WEXITSTATUS(status))
        """
        let argv = try JSONSerialization.data(withJSONObject: [cli.cli] + arguments)
        let answers = try JSONSerialization.data(withJSONObject: dialogue.map { [$0.prompt, $0.answer] })
        let result = try KeychainCLIProcess.run("/usr/bin/python3", ["-c", driver, String(decoding: argv, as: UTF8.self),
                                                                     String(decoding: answers, as: UTF8.self)],
                                                environment: cli.environment.merging(["KEYCHAIN_FILE_PASSPHRASE": ""]) { _, new in new })
        return (result.status, result.outputText + result.errorText)
    }

    private func cliStore() throws -> CLIStore {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            try Test.cancel("python3 drives the pseudo-terminal and is not installed")
        }
        return try CLIStore(cacheSeconds: 0)
    }

    @Test func aNewStoreAsksForThePassphraseTwice() throws {
        let cli = try cliStore()
        let created = try converse(cli, ["set", "svc", "acct"], [
            ("Secret for acct at svc: ", "the secret"),
            ("New passphrase for the keychain store at \(cli.directory): ", "typed passphrase"),
            ("Repeat the new passphrase: ", "typed passphrase"),
        ])
        #expect(created.status == 0, Comment(rawValue: created.transcript))
        #expect(!created.transcript.contains("typed passphrase"), "the passphrase was echoed: \(created.transcript)")
        #expect(try storedSecret(cli.store.backend(passphrase: "typed passphrase"), "svc", "acct") == Data("the secret".utf8))

        // An existing store asks once.
        let read = try converse(cli, ["get", "svc", "acct"], [("Passphrase for the keychain store at \(cli.directory): ", "typed passphrase")])
        #expect(read.status == 0, Comment(rawValue: read.transcript))
        #expect(read.transcript.contains("the secret"))
    }

    @Test func differingAnswersCreateNothing() throws {
        let cli = try cliStore()
        let refused = try converse(cli, ["set", "svc", "acct"], [
            ("Secret for acct at svc: ", "s"),
            ("New passphrase for the keychain store at \(cli.directory): ", "first answer"),
            ("Repeat the new passphrase: ", "second answer"),
        ])
        #expect(refused.status == 1)
        #expect(refused.transcript.contains("The two passphrases differ"), Comment(rawValue: refused.transcript))
        #expect(!FileManager.default.fileExists(atPath: cli.directory + "/store-header"))
    }
}
