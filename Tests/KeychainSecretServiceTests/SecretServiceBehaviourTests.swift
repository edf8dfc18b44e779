import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// How items look in the Secret Service, the collection setting, and many threads.
    @Suite("storage and concurrency")
    struct Behaviour {
        let backend = SecretServiceTestSupport.backend

        init() throws {
            try SecretServiceTestSupport.requireAvailable()
        }

        /// Internet passwords carry libsecret's network-schema names; labels are item labels.
        @Test func internetPasswordsUseTheNetworkSchemaNames() throws {
            guard toolExists("secret-tool") else { try Test.cancel("secret-tool is not installed") }
            let server = SecretServiceTestSupport.uniqueName("host") + ".example"
            defer {
                _ = try? backend.delete(ItemQuery(itemClass: .internetPassword,
                                                  constraints: ItemAttributes([.server: .string(server)])))
            }
            try backend.add(KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
                .server: .string(server), .account: .string("erin"), .protocol: .string("htps"), .port: .integer(8443),
                .path: .string("/login"), .authenticationType: .string("dflt"), .securityDomain: .string("realm"),
                .label: .string("Erin at the example host"), .comment: .string("a note"),
            ]), secret: SecretBytes(Data("net".utf8))))

            let listing = try runTool("secret-tool", ["search", "--all", "server", server])
            #expect(listing.status == 0, "secret-tool search failed: \(listing.errorText)")
            // secret-tool prints the label and secret on stdout and the attributes on stderr.
            let shown = listing.outputText + listing.errorText
            for line in ["attribute.user = erin", "attribute.server = \(server)", "attribute.protocol = htps",
                         "attribute.port = 8443", "attribute.object = /login", "attribute.authtype = dflt",
                         "attribute.domain = realm", "attribute.keychain:comment = a note",
                         "label = Erin at the example host", "schema = org.linuxkeychain.InternetPassword"] {
                #expect(shown.contains(line), "missing '\(line)' in: \(shown)")
            }
            let lookup = try runTool("secret-tool", ["lookup", "server", server, "user", "erin", "port", "8443"])
            #expect(lookup.output == Data("net".utf8))
        }

        /// A label the caller never gave is readable in Seahorse but not reported back.
        @Test func madeUpLabelsAreNotReportedAsAttributes() throws {
            guard toolExists("secret-tool") else { try Test.cancel("secret-tool is not installed") }
            let service = SecretServiceTestSupport.uniqueName("label")
            defer { _ = try? backend.delete(exactQuery(service, "frank", secrets: false)) }
            try backend.add(genericItem(service, "frank", Data("x".utf8)))
            let listing = try runTool("secret-tool", ["search", "--all", "service", service])
            #expect(listing.outputText.contains("label = \(service) (frank)"), "listing: \(listing.outputText)")
            let found = try backend.search(exactQuery(service, "frank"))
            #expect(found.count == 1)
            #expect(found.first?.attributes[.label] == nil, "a made-up label came back as kSecAttrLabel")

            // Renaming the account renames the made-up label with it.
            _ = try backend.update(exactQuery(service, "frank", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.account: .string("frank2")])))
            let renamed = try runTool("secret-tool", ["search", "--all", "service", service])
            #expect(renamed.outputText.contains("label = \(service) (frank2)"), "listing: \(renamed.outputText)")
            _ = try? backend.delete(exactQuery(service, "frank2", secrets: false))
        }

        /// An empty label, which Apple accepts and kwalletd refuses (InvalidArgs), is stored as
        /// the made-up label on every provider, added or updated, and reads back as none.
        @Test func anEmptyLabelIsStoredAsTheMadeUpOne() throws {
            guard toolExists("secret-tool") else { try Test.cancel("secret-tool is not installed") }
            let service = SecretServiceTestSupport.uniqueName("empty-label")
            defer { _ = try? backend.delete(exactQuery(service, "hal", secrets: false)) }
            var item = genericItem(service, "hal", Data("x".utf8))
            item.attributes[.label] = .string("")
            try backend.add(item)
            let listing = try runTool("secret-tool", ["search", "--all", "service", service])
            #expect(listing.outputText.contains("label = \(service) (hal)"), "listing: \(listing.outputText)")
            #expect(try backend.search(exactQuery(service, "hal")).first?.attributes[.label] == nil)

            _ = try backend.update(exactQuery(service, "hal", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.label: .string("named")])))
            _ = try backend.update(exactQuery(service, "hal", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.label: .string("")])))
            let renamed = try runTool("secret-tool", ["search", "--all", "service", service])
            #expect(renamed.outputText.contains("label = \(service) (hal)"), "listing: \(renamed.outputText)")
            #expect(try backend.search(exactQuery(service, "hal")).first?.attributes[.label] == nil)
        }

        /// `KEYCHAIN_SECRET_SERVICE_COLLECTION=session` keeps items out of the default collection.
        @Test func collectionSettingSelectsTheCollection() throws {
            try SecretServiceTestSupport.requireGnomeKeyring("the 'session' collection")
            let environment = ProcessInfo.processInfo.environment.merging([SecretServiceSettings.collectionVariable: "session"]) { _, new in new }
            let sessionBackend = SecretServiceBackend(settings: SecretServiceSettings(environment: environment))
            try SecretServiceTestSupport.requireAvailable(sessionBackend)
            #expect(sessionBackend.availability().explanation.contains("/org/freedesktop/secrets/collection/session"))
            let service = SecretServiceTestSupport.uniqueName("collection")
            defer { _ = try? sessionBackend.delete(exactQuery(service, "gina", secrets: false)) }
            try sessionBackend.add(genericItem(service, "gina", Data("in session".utf8)))
            #expect(try SecretServiceTestSupport.secret(service, "gina", in: sessionBackend) == Data("in session".utf8))
            #expect(try SecretServiceTestSupport.secret(service, "gina") == nil, "the default collection holds the session item")

            // The CLI follows the variable too.
            let get = try KeychainCLIProcess.run(try SecretServiceTestSupport.cli(),
                                                 ["--backend", "secret-service", "get", service, "gina"],
                                                 environment: [SecretServiceSettings.collectionVariable: "session"])
            #expect(get.status == 0 && get.output == Data("in session".utf8), "CLI in session: \(get.errorText)")
        }

        /// One process opens one Secret Service session, however many calls it makes: a `set`
        /// over an existing item checks availability, tries to add, then updates. A session the
        /// process closed does not count: one whose shared secret starts with a zero byte (one in
        /// 256) is closed and replaced, since providers disagree on such a key.
        @Test func oneSessionPerProcess() throws {
            guard toolExists("dbus-monitor") else { try Test.cancel("dbus-monitor is not installed") }
            let session = try PrivateSession()
            defer { session.remove() }
            let monitorFile = session.directory.appendingPathComponent("monitor").path
            let setup = """
                echo -n test-password | gnome-keyring-daemon --unlock --components=secrets >/dev/null
                dbus-monitor --session "type='method_call',interface='org.freedesktop.Secret.Service',member='OpenSession'" \\
                    "type='method_call',interface='org.freedesktop.Secret.Session',member='Close'" >'\(monitorFile)' 2>/dev/null &
                monitor=$!
                trap 'kill $monitor' EXIT
                sleep 1
                echo -n first | '\(session.cli)' --backend secret-service set reuse account
                """
            let run = try session.runCLI(["--backend", "secret-service", "set", "--allow-empty", "reuse", "account"], setup: setup)
            #expect(run.status == 0, "the second set failed: \(run.errorText)")
            let calls = try String(contentsOfFile: monitorFile, encoding: .utf8)
                .components(separatedBy: "\n").filter { $0.contains("member=OpenSession") || $0.contains("member=Close") }
            let opened = calls.filter { $0.contains("member=OpenSession") }.count
            let closed = calls.filter { $0.contains("member=Close") }.count
            #expect(opened - closed == 2, "two processes kept \(opened - closed) sessions: \(calls)")
        }

        /// 8 processes released at the same instant add the same new item, three times over:
        /// each time exactly one succeeds and seven see a duplicate, which only the per-user
        /// write lock guarantees (within one process the worker thread serializes anyway).
        @Test func gatedRacingAddProcessesYieldOneWinner() throws {
            let cli = try SecretServiceTestSupport.cli()
            let service = SecretServiceTestSupport.uniqueName("gated-race")
            defer {
                _ = try? backend.delete(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)])))
            }
            let scratch = scratchPath("lkc-ss-race")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: scratch) }
            for round in 1...3 {
                let directory = scratch.appendingPathComponent("round\(round)").path
                // Every racer blocks reading the gate FIFO; one write of 8 lines releases them all.
                let script = """
                    mkdir -p '\(directory)' && cd '\(directory)' && mkfifo gate
                    for racer in 1 2 3 4 5 6 7 8; do
                        ( read _ < gate
                          timeout 30 '\(cli)' --backend secret-service add --allow-empty '\(service)' 'account\(round)' </dev/null >/dev/null 2>"error$racer"
                          echo $? > "status$racer" ) &
                    done
                    sleep 0.5
                    printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n' > gate
                    wait
                    cat status*
                    # What a racer that neither won nor saw a duplicate said, for the message below.
                    for racer in 1 2 3 4 5 6 7 8; do
                        case $(cat "status$racer") in 0|\(CLIExit.duplicate)) ;; *) sed "s/^/racer $racer: /" "error$racer" >&2 ;; esac
                    done
                    """
                let result = try runTool("timeout", ["60", "bash", "-c", script])
                let statuses = result.outputText.split(separator: "\n").compactMap { Int32($0) }
                #expect(statuses.count == 8, "round \(round): \(result.outputText) \(result.errorText)")
                #expect(statuses.filter { $0 == 0 }.count == 1 && statuses.filter { $0 == CLIExit.duplicate }.count == 7,
                        "round \(round): exit statuses \(statuses.sorted()) \(result.errorText)")
            }
            let stored = try backend.search(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)])))
            #expect(stored.count == 3, "\(stored.count) items for 3 racing rounds")
        }

        /// All libsecret calls go through one worker thread; 16 threads at once must still see
        /// each of their own writes, and exactly one of 16 racing adds wins.
        @Test func sixteenThreads() throws {
            let service = SecretServiceTestSupport.uniqueName("threads")
            defer {
                _ = try? backend.delete(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)])))
            }
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: 16) { index in
                do {
                    let account = "t\(index)"
                    try backend.add(genericItem(service, account, Data("v\(index)".utf8)))
                    let read = try SecretServiceTestSupport.secret(service, account, in: backend)
                    if read != Data("v\(index)".utf8) { failures.add("thread \(index) read back other bytes") }
                    let changed = try backend.update(exactQuery(service, account, secrets: false),
                                                     with: ItemChanges(secret: SecretBytes(Data("w\(index)".utf8))))
                    if changed != 1 { failures.add("thread \(index) updated \(changed) items") }
                    do {
                        try backend.add(genericItem(service, "contested", Data("\(index)".utf8)))
                        failures.add("winner")
                    } catch KeychainError.duplicateItem {
                        // expected for all but one thread
                    }
                } catch {
                    failures.add("thread \(index): \(error)")
                }
            }
            let problems = failures.all.filter { $0 != "winner" }
            #expect(problems.isEmpty, "\(problems)")
            #expect(failures.all.filter { $0 == "winner" }.count == 1, "racing adds: \(failures.all)")
            let all = try backend.search(ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                                   includeSecrets: true))
            #expect(all.count == 17, "found \(all.count) items instead of 16 plus the contested one")
        }
    }
}

private final class Failures: Sendable {
    private let entries = Locked<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
