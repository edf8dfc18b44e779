import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// `linux-keychain migrate` between every ordered pair of real backends (secret-service on the
/// provider with-services.sh started, keyring, file, vault), with a mixed set of items: generic
/// and internet passwords, binary and empty secrets, non-ASCII names, two access groups and
/// shared items, one item each written by `secret-tool` and by Python `keyring`, and an
/// internet item's authentication type and security domain and a synchronizable item (which
/// `list --json` shows, so every move is checked to keep them).
///
/// The twelve moves form one circuit (each ordered pair once), each with `--delete-source`, so
/// every store starts a move holding exactly the test's items. The stores are this suite's own:
/// a fresh file directory and Vault prefix, a kernel keyring of its own that every CLI child
/// joins as its session keyring (so `--delete-source` never reaches the keyring items of tests
/// running beside it), and gnome-keyring's `session` collection (KeePassXC and KWallet, which
/// have none, keep the scratch database or wallet with-services.sh made; there, run this suite
/// alone, as `--filter MigrateCommandTests`, since other suites' items share that collection).
@Suite("linux-keychain migrate between real backends", .serialized)
struct MigrateCommandTests {
    let cli: String
    let tag = "mig-\(UUID().uuidString.prefix(8).lowercased())"
    let environment: [String: String]
    /// The Secret Service collection the test's items live in.
    static let collection = scratchSecretServiceCollection

    init() throws {
        cli = try builtCLI()
        let directory = scratchPath("lkc-migrate").path
        environment = ["KEYCHAIN_FILE_DIR": directory, "KEYCHAIN_VAULT_PREFIX": "\(tag)/",
                       "KEYCHAIN_SECRET_SERVICE_COLLECTION": Self.collection, "KEYCHAIN_KEYRING": "session",
                       "KEYCHAIN_BACKEND": ""]
    }

    /// The name of the keyring the CLI children share; made by `withOwnKeyring`.
    var keyringName: String { "lkc-\(tag)" }

    /// Runs `body` with this test's keyring in place: a named keyring kept alive by a link from
    /// the user keyring, which each child joins (`keyctl session NAME`); removed afterwards.
    func withOwnKeyring(_ body: () throws -> Void) throws {
        let made = try KeychainCLIProcess.run("/usr/bin/keyctl", ["newring", keyringName, "@u"])
        let id = made.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(made.status == 0, "keyctl newring failed: \(made.errorText)")
        defer { _ = try? KeychainCLIProcess.run("/usr/bin/keyctl", ["unlink", id, "@u"]) }
        // The user may search and join it: without that, `keyctl session NAME` makes a new one.
        let permitted = try KeychainCLIProcess.run("/usr/bin/keyctl", ["setperm", id, "0x3f3f0000"])
        try #require(permitted.status == 0, "keyctl setperm failed: \(permitted.errorText)")
        try body()
    }

    func keychain(_ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run("/usr/bin/keyctl", ["session", keyringName, cli] + arguments, input: input,
                                   environment: environment, timeout: 120)
    }

    /// One of the test's items: how to name it on the command line, and its secret.
    struct Seed {
        let naming: [String]
        let secret: Data
    }

    var seeds: [Seed] {
        [
            Seed(naming: [tag, "alice"], secret: Data([0, 1, 2, 255, 10, 13])),
            Seed(naming: ["--group", "app.one", tag, "ålice-ünïcode"], secret: Data()),
            Seed(naming: ["--group", "app.one", tag, "alice"], secret: Data("one".utf8)),
            Seed(naming: ["--group", "app.two", tag, "alice"], secret: Data("two\n".utf8)),
            Seed(naming: ["--protocol", "https", "--port", "8443", "--path", "/v1", "\(tag).example", "bob"], secret: Data("wéb".utf8)),
            Seed(naming: ["\(tag)-tool", "carol"], secret: Data("by secret-tool".utf8)),
            Seed(naming: ["\(tag)-py", "dave"], secret: Data("by python keyring".utf8)),
            Seed(naming: ["--protocol", "https", "--port", "443", "\(tag)-form.example", "erin"], secret: Data("in a form".utf8)),
            Seed(naming: ["\(tag)-sync", "frank"], secret: Data("synchronizable".utf8)),
        ]
    }

    /// The attributes `set` has no options for: an internet item with an authentication type
    /// and a security domain, and a synchronizable item. They reach the Secret Service the way
    /// a user's would, through a bundle exported from a file store that holds them.
    var itemsSetCannotWrite: [KeychainItem] {
        [
            KeychainItem(itemClass: .internetPassword, attributes: ItemAttributes([
                .server: .string("\(tag)-form.example"), .account: .string("erin"), .protocol: .string("htps"), .port: .integer(443),
                .authenticationType: .string("form"), .securityDomain: .string("realm ✓"), .label: .string("Label of erin"),
            ]), secret: SecretBytes(seeds[7].secret)),
            KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
                .service: .string("\(tag)-sync"), .account: .string("frank"), .synchronizable: .bool(true), .label: .string("Label of frank"),
            ]), secret: SecretBytes(seeds[8].secret)),
        ]
    }

    func seedThroughABundle(into backend: String) throws {
        let directory = scratchPath("lkc-migrate-bundle").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bundling = ["KEYCHAIN_FILE_DIR": directory, "KEYCHAIN_FILE_PASSPHRASE": "bundle-seed", "KEYCHAIN_BUNDLE_KDF": "interactive",
                        "KEYCHAIN_BUNDLE_PASSPHRASE": "bundle-seed"]
        let file = EncryptedFileBackend(environment: bundling)
        for item in itemsSetCannotWrite { try file.add(item) }
        let bundle = "\(directory)/seed.lkb"
        let export = try KeychainCLIProcess.run(cli, ["export", "--backend", "file", bundle], environment: environment.merging(bundling) { _, new in new })
        try #require(export.status == 0, "export failed: \(export.errorText)")
        var importing = environment.merging(bundling) { _, new in new }
        importing["KEYCHAIN_FILE_DIR"] = environment["KEYCHAIN_FILE_DIR"]
        let imported = try KeychainCLIProcess.run(cli, ["import", "--backend", backend, bundle], environment: importing)
        try #require(imported.status == 0 && imported.outputText.contains("2 copied"), "import failed: \(imported.errorText)")
    }

    /// The test's items as `list --json` shows them in `backend`, sorted.
    func listing(_ backend: String) throws -> [String] {
        let result = try keychain(["list", "--json", "--backend", backend])
        if result.status == 3 { return [] }
        try #require(result.status == 0, "list in \(backend) failed: \(result.errorText)")
        let rows = try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        return rows.filter { row in
            ((row["service"] as? String) ?? (row["server"] as? String) ?? "").hasPrefix(tag)
        }.map { row in
            let data = try? JSONSerialization.data(withJSONObject: row, options: [.sortedKeys])
            return String(decoding: data ?? Data(), as: UTF8.self)
        }.sorted()
    }

    func seed(_ backend: String) throws {
        for seed in seeds.prefix(5) {
            let allowEmpty = seed.secret.isEmpty ? ["--allow-empty"] : []
            let set = try keychain(["set", "--backend", backend, "--label", "Label of \(seed.naming.last!)", "--comment", "ç"] + allowEmpty + seed.naming,
                                   input: seed.secret)
            try #require(set.status == 0, "set failed: \(set.errorText)")
        }
        let tool = try KeychainCLIProcess.run("/usr/bin/env", ["secret-tool", "store", "--collection=\(Self.collection)", "--label=by secret-tool",
                                                               "service", "\(tag)-tool", "username", "carol"],
                                              input: seeds[5].secret, environment: environment)
        try #require(tool.status == 0, "secret-tool store failed: \(tool.errorText)")
        let script = """
            import sys, keyring.backends.SecretService as s
            k = s.Keyring(); k.preferred_collection = '/org/freedesktop/secrets/aliases/' + sys.argv[2]
            k.set_password(sys.argv[1], 'dave', 'by python keyring')
            """
        let python = try KeychainCLIProcess.run("/usr/bin/env", ["python3", "-c", script, "\(tag)-py", Self.collection], environment: environment)
        try #require(python.status == 0, "python keyring failed: \(python.errorText)")
        try seedThroughABundle(into: backend)
    }

    func expectSecrets(in backend: String) throws {
        for seed in seeds {
            let get = try keychain(["get", "--backend", backend] + seed.naming)
            #expect(get.status == 0 && get.output == seed.secret, "\(seed.naming) in \(backend): \(get.errorText)")
        }
    }

    @Test func everyOrderedPairOfRealBackendsKeepsEveryItemExactly() throws {
        try withOwnKeyring(circuit)
    }

    private func circuit() throws {
        let circuit = ["secret-service", "keyring", "secret-service", "file", "secret-service", "vault",
                       "keyring", "file", "keyring", "vault", "file", "vault", "secret-service"]
        try seed("secret-service")
        let original = try listing("secret-service")
        try #require(original.count == seeds.count, "seeded \(original.count) items: \(original)")
        // So that each move's comparison of listings covers them.
        #expect(original.contains { $0.contains("\"authentication-type\":\"form\"") && $0.contains("\"security-domain\":\"realm ✓\"") }, "\(original)")
        #expect(original.contains { $0.contains("\"synchronizable\":true") && $0.contains("frank") }, "\(original)")

        let dry = try keychain(["migrate", "--dry-run", "--from", "secret-service", "--to", "keyring"])
        #expect(dry.status == 0 && dry.outputText.components(separatedBy: "would copy: ").count - 1 >= seeds.count, "\(dry.errorText)")
        #expect(try listing("keyring").isEmpty)

        for (source, target) in zip(circuit, circuit.dropFirst()) {
            let move = try keychain(["migrate", "--from", source, "--to", target, "--delete-source"])
            try #require(move.status == 0, "\(source) → \(target): \(move.errorText)\n\(move.outputText)")
            #expect(!move.outputText.contains("by secret-tool") && !move.outputText.contains("python keyring"))
            #expect(try listing(source).isEmpty, "\(source) still holds items after --delete-source")
            let moved = try listing(target)
            #expect(moved == original, "\(source) → \(target) changed the items:\n\(moved)\nversus\n\(original)")
            try expectSecrets(in: target)
        }
        _ = try keychain(["migrate", "--from", "secret-service", "--to", "file", "--delete-source"])
        try? FileManager.default.removeItem(atPath: environment["KEYCHAIN_FILE_DIR"]!)
    }

    /// Runs the CLI with a home of its own, so that pins and the record are this test's.
    func keychain(_ arguments: [String], home: String, input: Data? = nil) throws -> KeychainCLIProcess.Result {
        var extra = environment
        extra["XDG_CONFIG_HOME"] = home + "/config"
        extra["XDG_STATE_HOME"] = home + "/state"
        return try KeychainCLIProcess.run("/usr/bin/keyctl", ["session", keyringName, cli] + arguments, input: input,
                                          environment: extra, timeout: 60)
    }

    @Test func thePinAndTheRecordFollowACompleteMoveAndNotAnIncompleteOne() throws {
        try withOwnKeyring(placementFollows)
    }

    private func placementFollows() throws {
        let home = scratchPath("lkc-home").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(try keychain(["pin", "file"], home: home).status == 0)
        #expect(try keychain(["set", "\(tag)-pin", "alice"], home: home, input: Data("p".utf8)).status == 0)
        // A conflict: exit 4, the source kept, the pin unmoved.
        #expect(try keychain(["set", "--backend", "vault", "\(tag)-pin", "alice"], home: home, input: Data("other".utf8)).status == 0)
        let conflict = try keychain(["migrate", "--to", "vault", "--delete-source"], home: home)
        #expect(conflict.status == 4 && conflict.outputText.contains("conflict: generic service '\(tag)-pin'"), "\(conflict.errorText)")
        #expect(try String(contentsOfFile: home + "/config/linux-keychain/config", encoding: .utf8).contains("backend = file"))
        #expect(try keychain(["get", "\(tag)-pin", "alice"], home: home).output == Data("p".utf8))

        let move = try keychain(["migrate", "--to", "vault", "--overwrite", "--delete-source"], home: home)
        #expect(move.status == 0 && move.errorText.contains("pinned 'vault'"), "\(move.errorText)")
        #expect(try String(contentsOfFile: home + "/config/linux-keychain/config", encoding: .utf8).contains("backend = vault"))
        #expect(try keychain(["get", "\(tag)-pin", "alice"], home: home).output == Data("p".utf8))
        #expect(try keychain(["get", "--backend", "file", "\(tag)-pin", "alice"], home: home).status == 3)

        // The record: vault recorded, moved to the keyring.
        #expect(try keychain(["unpin"], home: home).status == 0)
        try FileManager.default.createDirectory(atPath: home + "/state/linux-keychain", withIntermediateDirectories: true)
        try Data("vault\n".utf8).write(to: URL(fileURLWithPath: home + "/state/linux-keychain/backend"))
        let recorded = try keychain(["migrate", "--to", "keyring", "--delete-source"], home: home)
        #expect(recorded.status == 0, "\(recorded.errorText)")
        #expect(try String(contentsOfFile: home + "/state/linux-keychain/backend", encoding: .utf8) == "keyring\n")
        #expect(try keychain(["get", "\(tag)-pin", "alice"], home: home).output == Data("p".utf8))
        _ = try keychain(["delete", "\(tag)-pin", "alice"], home: home)
    }

    @Test func anUnreadableItemIsReportedAndTheRestMovedButNothingDeletedNorThePinMoved() throws {
        try withOwnKeyring(unreadableItem)
    }

    /// A Vault item written by hand whose secret field is not base64: named by its path, its
    /// secret cannot be read.
    private func unreadableItem() throws {
        let home = scratchPath("lkc-home").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(try keychain(["pin", "vault"], home: home).status == 0)
        let services = ["\(tag)-good1", "\(tag)-bad", "\(tag)-good2"]
        for service in [services[0], services[2]] {
            let set = try keychain(["set", service, "alice"], home: home, input: Data("secret of \(service)".utf8))
            try #require(set.status == 0, "set failed: \(set.errorText)")
        }
        defer { for service in services { _ = try? keychain(["delete", "--backend", "vault", service, "alice"], home: home) } }
        let put = try KeychainCLIProcess.run("/usr/bin/env", ["bao", "kv", "put", "-mount=secret", "\(tag)/generic/\(services[1])/alice",
                                                              "password_base64=secret of bad!"], environment: environment)
        try #require(put.status == 0, "bao kv put failed: \(put.errorText)")
        #expect(try keychain(["get", services[1], "alice"], home: home).status != 0)

        let move = try keychain(["migrate", "--to", "file", "--delete-source"], home: home)
        #expect(move.status != 0 && move.status != 4, "exit \(move.status): \(move.errorText)")
        #expect(move.outputText.contains("failed: generic service '\(tag)-bad', account 'alice' (vault: it could not be read from 'vault': "),
                "\(move.outputText)")
        #expect(move.outputText.contains("is not valid base64"), "the reason is not given: \(move.outputText)")
        #expect(move.outputText.contains("2 copied, 1 failed"), "\(move.outputText)")
        #expect(move.errorText.contains("nothing was deleted from the source and the placement did not move"), "\(move.errorText)")
        #expect(!(move.outputText + move.errorText).contains("secret of"))
        for service in [services[0], services[2]] {
            #expect(try keychain(["get", "--backend", "file", service, "alice"], home: home).output == Data("secret of \(service)".utf8))
            #expect(try keychain(["get", "--backend", "vault", service, "alice"], home: home).output == Data("secret of \(service)".utf8),
                    "\(service) was deleted from the source")
        }
        #expect(try keychain(["get", "--backend", "file", services[1], "alice"], home: home).status == 3)
        #expect(try String(contentsOfFile: home + "/config/linux-keychain/config", encoding: .utf8).contains("backend = vault"))

        // An export writes the bundle with the other items, names the unreadable one and fails.
        let bundle = home + "/all.lkb"
        var extra = environment
        extra["KEYCHAIN_BUNDLE_PASSPHRASE"] = "unreadable"
        extra["KEYCHAIN_BUNDLE_KDF"] = "interactive"
        let export = try KeychainCLIProcess.run(cli, ["export", "--backend", "vault", bundle], environment: extra, timeout: 60)
        #expect(export.status != 0 && export.errorText.contains("unreadable: generic service '\(tag)-bad', account 'alice'"), "\(export.errorText)")
        #expect(export.outputText.contains("exported 2 items from 'vault'"), "\(export.outputText)")
        #expect(!(export.outputText + export.errorText).contains("secret of"))
        for service in services { _ = try keychain(["delete", "--backend", "file", service, "alice"], home: home) }
    }

    @Test(arguments: [["--to", "memory"], ["--to", "auto"], ["--from", "file", "--to", "file"], []])
    func migrateRefusesATargetThatIsNoOtherStore(_ arguments: [String]) throws {
        let result = try KeychainCLIProcess.run(cli, ["migrate", "--from", "file"] + arguments, environment: environment)
        #expect(result.status != 0 && result.errorText.split(separator: "\n").count <= 2, "\(result.errorText)")
    }

    @Test func anImportThroughAutoRecordsTheStoreItWroteTo() throws {
        let home = scratchPath("lkc-home").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let bundle = home + "/one.lkb"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var extra = environment
        extra["XDG_CONFIG_HOME"] = home + "/config"
        extra["XDG_STATE_HOME"] = home + "/state"
        extra["KEYCHAIN_BUNDLE_PASSPHRASE"] = "auto-record"
        extra["KEYCHAIN_BUNDLE_KDF"] = "interactive"
        func run(_ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
            try KeychainCLIProcess.run(cli, arguments, input: input, environment: extra, timeout: 60)
        }
        #expect(try run(["set", "--backend", "file", "\(tag)-auto", "alice"], input: Data("a".utf8)).status == 0)
        #expect(try run(["export", "--backend", "file", bundle]).status == 0)
        // auto picks the Secret Service here (its scratch collection, `collection`).
        let imported = try run(["import", bundle])
        #expect(imported.status == 0 && imported.outputText.contains("1 copied"), "\(imported.errorText)")
        #expect(try String(contentsOfFile: home + "/state/linux-keychain/backend", encoding: .utf8) == "secret-service\n")
        #expect(try run(["get", "\(tag)-auto", "alice"]).output == Data("a".utf8))
        #expect(try run(["delete", "--backend", "secret-service", "\(tag)-auto", "alice"]).status == 0)
    }
}
