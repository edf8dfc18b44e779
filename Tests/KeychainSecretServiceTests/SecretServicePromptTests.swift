import Foundation
import KeychainConformance
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A provider that answers `Item.Delete` with a prompt: the library shows it
    /// (`Prompt.Prompt`) and waits for its `Completed` signal, as libsecret did, without a proxy.
    /// No real provider prompts there headless, so a small one in Python (jeepney, installed with
    /// Python keyring) plays the provider on a bus of its own, and logs each request it gets.
    @Suite("a provider's prompt")
    struct ProviderPrompt {
        @Test func anAnsweredPromptDeletesTheItem() throws {
            let (run, requests) = try deleteAgainstPromptingProvider(answer: "accept")
            #expect(run.status == 0, "exit status \(run.status): \(run.errorText)")
            #expect(requests.contains("Delete \(Self.item)"), "requests: \(requests)")
            #expect(requests.contains("Prompt \(Self.prompt)"), "requests: \(requests)")
        }

        @Test func aDismissedPromptIsAnErrorAndNotNotFound() throws {
            let (run, requests) = try deleteAgainstPromptingProvider(answer: "dismiss")
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.errorText.contains("dismissed"), "stderr: \(run.errorText)")
            #expect(requests.contains("Prompt \(Self.prompt)"), "requests: \(requests)")
        }

        /// A prompt that is never answered ends at the timeout, dismissed, instead of hanging.
        @Test func anUnansweredPromptEndsAtTheTimeoutAndIsDismissed() throws {
            let (run, requests) = try deleteAgainstPromptingProvider(answer: "never", timeout: "1")
            #expect(run.status != 0 && run.status != CLIExit.notFound, "exit status \(run.status): \(run.errorText)")
            #expect(run.milliseconds < 4000, "took \(run.milliseconds) ms")
            #expect(requests.contains("Dismiss \(Self.prompt)"), "requests: \(requests)")
        }

        static let collection = "/org/freedesktop/secrets/collection/fake"
        static let item = collection + "/1"
        static let prompt = "/org/freedesktop/secrets/prompt/p1"

        /// The provider: one item (service `a`, account `b`), no transfer session (a delete needs
        /// none), and a prompt for deleting it, answered as `answer` says (accept, dismiss, never).
        static let provider = """
            import sys
            from jeepney import MessageType, HeaderFields, DBusAddress, new_method_return, new_error, new_signal
            from jeepney.io.blocking import open_dbus_connection
            from jeepney.bus_messages import message_bus
            log, answer = open(sys.argv[1], 'a', buffering=1), sys.argv[2]
            collection, item, prompt = '\(collection)', '\(item)', '\(prompt)'
            attributes = ('a{ss}', {'service': 'a', 'username': 'b'})
            properties = {'Attributes': attributes, 'Label': ('s', 'fake'), 'Locked': ('b', False),
                          'Created': ('t', 1), 'Modified': ('t', 1)}
            connection = open_dbus_connection(bus='SESSION')
            connection.send_and_get_reply(message_bus.RequestName('org.freedesktop.secrets'))
            print('owned', flush=True)
            while True:
                message = connection.receive()
                if message.header.message_type != MessageType.method_call:
                    continue
                member = message.header.fields.get(HeaderFields.member)
                path = message.header.fields.get(HeaderFields.path)
                log.write(f'{member} {path}\\n')
                signal = None
                if member == 'OpenSession':
                    reply = new_error(message, 'org.freedesktop.DBus.Error.NotSupported', 's', ('no sessions here',))
                elif member == 'ReadAlias':
                    reply = new_method_return(message, 'o', (collection,))
                elif member == 'Get':
                    reply = new_method_return(message, 'v', (properties.get(message.body[1], ('b', False)),))
                elif member == 'GetAll':
                    reply = new_method_return(message, 'a{sv}', (properties,))
                elif member == 'SearchItems':
                    reply = new_method_return(message, 'ao', ([item],))
                elif member == 'Delete':
                    reply = new_method_return(message, 'o', (prompt,))
                elif member == 'Prompt':
                    reply = new_method_return(message)
                    if answer != 'never':
                        emitter = DBusAddress(prompt, interface='org.freedesktop.Secret.Prompt')
                        signal = new_signal(emitter, 'Completed', 'bv', (answer == 'dismiss', ('s', '')))
                elif member == 'Dismiss':
                    reply = new_method_return(message)
                else:
                    reply = new_error(message, 'org.freedesktop.DBus.Error.UnknownMethod')
                connection.send(reply)
                if signal is not None:
                    connection.send(signal)
            """

        /// Runs `linux-keychain delete a b` against the provider above in a private session, and
        /// returns the run and the requests the provider got ("Member /path").
        private func deleteAgainstPromptingProvider(answer: String, timeout: String = "5") throws
            -> (run: PrivateSession.Run, requests: [String]) {
            let probe = try runTool("python3", ["-c", "import jeepney"])
            guard probe.status == 0 else {
                try skipOrFail("python3 jeepney (installed with Python keyring) is missing")
            }
            let session = try PrivateSession()
            defer { session.remove() }
            let script = session.directory.appendingPathComponent("provider.py")
            try Self.provider.write(to: script, atomically: true, encoding: .utf8)
            let log = session.directory.appendingPathComponent("requests").path
            let marker = session.directory.appendingPathComponent("provider-started").path
            let setup = """
                python3 '\(script.path)' '\(log)' '\(answer)' >'\(marker)' &
                provider=$!
                trap 'kill $provider' EXIT
                for _ in $(seq 1 200); do grep -q owned '\(marker)' && break; sleep 0.05; done
                """
            let run = try session.runCLI(["--backend", "secret-service", "delete", "a", "b"], setup: setup,
                                         environment: [SecretServiceSettings.timeoutVariable: timeout])
            let requests = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return (run, requests)
        }
    }
}
