import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// Items written by `secret-tool` and Python's `keyring` are read by this library, and the
    /// other way round, through the shared attribute names `service` and `username`.
    @Suite("interop")
    struct Interop {
        let backend = SecretServiceTestSupport.backend

        /// Python code that stores stdin as the password of (argv[1], argv[2]).
        static let pythonSet = "import sys, keyring; keyring.set_password(sys.argv[1], sys.argv[2], sys.stdin.read())"
        static let pythonGet = "import sys, keyring; sys.stdout.write(keyring.get_password(sys.argv[1], sys.argv[2]) or '<none>')"

        init() throws {
            try SecretServiceTestSupport.requireAvailable()
        }

        @Test func secretToolReadsWhatTheCLIStores() throws {
            try requireTool("secret-tool")
            try expectSecretToolReads(Data("control\u{1}\u{7f} and text ✓".utf8))
            // KWallet keeps a text secret as a string that ends at its first NUL; there the
            // library stores such a secret as bytes, which secret-tool refuses to print.
            if SecretServiceTestSupport.provider == "kwallet" {
                try Test.cancel("KWallet cuts a text secret at its first NUL: secret-tool cannot read one whole there")
            }
            try expectSecretToolReads(Data("binary\u{0}\u{1}\u{7f} and text ✓".utf8))
        }

        private func expectSecretToolReads(_ secret: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let service = SecretServiceTestSupport.uniqueName("to-secret-tool")
            defer { _ = try? backend.delete(exactQuery(service, "alice", secrets: false)) }
            let set = try runTool(try SecretServiceTestSupport.cli(),
                                  ["--backend", "secret-service", "set", service, "alice"], input: secret)
            #expect(set.status == 0, "linux-keychain set failed: \(set.errorText)", sourceLocation: sourceLocation)
            let lookup = try runTool("secret-tool", ["lookup", "service", service, "username", "alice"])
            #expect(lookup.status == 0, "secret-tool lookup failed: \(lookup.errorText)", sourceLocation: sourceLocation)
            #expect(lookup.output == secret, "secret-tool read \(lookup.output.count) bytes that differ from the \(secret.count) stored",
                    sourceLocation: sourceLocation)
        }

        /// Text with a NUL in it comes back whole on every provider, to this library and to
        /// Python keyring: KWallet would cut it at the NUL if it were sent as text.
        @Test func aTextSecretWithANULComesBackWhole() throws {
            try requirePythonKeyring()
            let service = SecretServiceTestSupport.uniqueName("nul-text")
            defer { _ = try? backend.delete(exactQuery(service, "erin", secrets: false)) }
            let secret = Data("before\u{0}after ✓".utf8)
            let set = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "set", service, "erin"],
                                  input: secret)
            #expect(set.status == 0, "linux-keychain set failed: \(set.errorText)")
            let get = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "get", service, "erin"])
            #expect(get.output == secret, "linux-keychain get read \(Array(get.output))")
            let python = try runTool("python3", ["-c", Self.pythonGet, service, "erin"])
            #expect(python.output == secret, "python keyring read \(Array(python.output)): \(python.errorText)")

            // An update of the secret alone, and one with an attribute, keep it whole too.
            let updated = Data("\u{0}updated".utf8)
            _ = try backend.update(exactQuery(service, "erin", secrets: false),
                                   with: ItemChanges(secret: SecretBytes(updated)))
            #expect(try SecretServiceTestSupport.secret(service, "erin") == updated)
            let commented = Data("commented\u{0}".utf8)
            _ = try backend.update(exactQuery(service, "erin", secrets: false),
                                   with: ItemChanges(attributes: ItemAttributes([.comment: .string("c")]),
                                                     secret: SecretBytes(commented)))
            #expect(try SecretServiceTestSupport.secret(service, "erin") == commented)
        }

        @Test func keychainReadsWhatSecretToolStores() throws {
            try requireTool("secret-tool")
            let service = SecretServiceTestSupport.uniqueName("from-secret-tool")
            defer { _ = try? backend.delete(exactQuery(service, "bob", secrets: false)) }
            let store = try runTool("secret-tool", ["store", "--label=Stored by secret-tool", "service", service, "username", "bob"],
                                    input: Data("tool-secret".utf8))
            #expect(store.status == 0, "secret-tool store failed: \(store.errorText)")

            let get = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "get", service, "bob"])
            #expect(get.status == 0, "linux-keychain get failed: \(get.errorText)")
            #expect(get.output == Data("tool-secret".utf8))

            let found = try backend.search(exactQuery(service, "bob"))
            #expect(found.count == 1)
            #expect(found.first?.secret?.makeData() == Data("tool-secret".utf8))
            #expect(found.first?.attributes.string(.label) == "Stored by secret-tool", "the item label is kSecAttrLabel")
        }

        @Test func pythonKeyringUsesTheSecretServiceHere() throws {
            try requirePythonKeyring()
            let result = try runTool("python3", ["-c", "import keyring; k = keyring.get_keyring(); print(type(k).__module__ + '.' + type(k).__name__)"])
            #expect(result.status == 0, "python3 failed: \(result.errorText)")
            // Otherwise the interop tests below would prove nothing.
            #expect(result.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "keyring.backends.SecretService.Keyring")
        }

        @Test func pythonKeyringReadsWhatTheCLIStores() throws {
            try requirePythonKeyring()
            let service = SecretServiceTestSupport.uniqueName("to-python")
            defer { _ = try? backend.delete(exactQuery(service, "carol", secrets: false)) }
            let set = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "set", service, "carol"],
                                  input: Data("for python ✓".utf8))
            #expect(set.status == 0, "linux-keychain set failed: \(set.errorText)")
            let get = try runTool("python3", ["-c", Self.pythonGet, service, "carol"])
            #expect(get.status == 0, "python keyring failed: \(get.errorText)")
            #expect(get.outputText == "for python ✓")
        }

        @Test func keychainReadsWhatPythonKeyringStores() throws {
            try requirePythonKeyring()
            let service = SecretServiceTestSupport.uniqueName("from-python")
            defer { _ = try? backend.delete(exactQuery(service, "dave", secrets: false)) }
            let set = try runTool("python3", ["-c", Self.pythonSet, service, "dave"], input: Data("from python".utf8))
            #expect(set.status == 0, "python keyring failed: \(set.errorText)")

            let get = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "get", service, "dave"])
            #expect(get.status == 0, "linux-keychain get failed: \(get.errorText)")
            #expect(get.output == Data("from python".utf8))
            #expect(try SecretServiceTestSupport.secret(service, "dave") == Data("from python".utf8))

            // Adding the same service and account is a duplicate, whoever wrote the first one.
            expectKeychainError(errSecDuplicateItem) {
                try backend.add(genericItem(service, "dave", Data("mine".utf8)))
            }
            let add = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "add", service, "dave"],
                                  input: Data("mine".utf8))
            #expect(add.status == CLIExit.duplicate, "adding over a Python item: \(add.status) \(add.errorText)")

            // An update through this library keeps the item readable by Python.
            let changed = try backend.update(exactQuery(service, "dave", secrets: false),
                                             with: ItemChanges(secret: SecretBytes(Data("updated".utf8))))
            #expect(changed == 1)
            let reread = try runTool("python3", ["-c", Self.pythonGet, service, "dave"])
            #expect(reread.outputText == "updated")
        }

        /// "Delete everything on logout" code must not take other programs' items with it.
        /// Runs in gnome-keyring's `session` collection, so that it deletes no other test's items;
        /// KeePassXC has one collection only, where the serialized suite runs nothing else meanwhile.
        @Test func classWideDeleteSparesOtherProgramsItems() throws {
            try requirePythonKeyring()
            let onGnomeKeyring = SecretServiceTestSupport.provider == "gnome-keyring"
            let sessionBackend = SecretServiceBackend(settings: SecretServiceSettings(
                environment: ProcessInfo.processInfo.environment.merging(
                    [SecretServiceSettings.collectionVariable: onGnomeKeyring ? "session" : "default"]) { _, new in new }))
            try SecretServiceTestSupport.requireAvailable(sessionBackend)
            let service = SecretServiceTestSupport.uniqueName("class-wide")
            let pythonIntoSession = """
                import sys, keyring
                from keyring.backends import SecretService
                k = SecretService.Keyring()
                if sys.argv[3] == 'session':
                    k.preferred_collection = '/org/freedesktop/secrets/collection/session'
                k.set_password(sys.argv[1], sys.argv[2], sys.stdin.read())
                """
            let python = try runTool("python3", ["-c", pythonIntoSession, service, "python-user", onGnomeKeyring ? "session" : "default"],
                                     input: Data("keep me".utf8))
            #expect(python.status == 0, "python keyring failed: \(python.errorText)")
            defer { _ = try? sessionBackend.delete(exactQuery(service, "python-user", secrets: false)) }
            try sessionBackend.add(genericItem(service, "ours", Data("drop me".utf8)))
            try sessionBackend.add(genericItem(service + "-other", "ours", Data("drop me too".utf8)))

            // Before: the query naming the service sees both writers' items.
            let named = try sessionBackend.search(ItemQuery(itemClass: .genericPassword,
                                                            constraints: ItemAttributes([.service: .string(service)])))
            #expect(Set(named.compactMap { $0.attributes.string(.account) }) == ["python-user", "ours"])

            let deleted = try sessionBackend.delete(ItemQuery(itemClass: .genericPassword, matchesAnySynchronizable: true))
            #expect(deleted >= 2, "the class-wide delete removed \(deleted) items")
            #expect(try SecretServiceTestSupport.secret(service, "ours", in: sessionBackend) == nil)
            #expect(try SecretServiceTestSupport.secret(service + "-other", "ours", in: sessionBackend) == nil)
            #expect(try SecretServiceTestSupport.secret(service, "python-user", in: sessionBackend) == Data("keep me".utf8),
                    "the class-wide delete removed Python's item")
        }

        private func requireTool(_ name: String) throws {
            guard !toolExists(name) else { return }
            try skipOrFail("\(name) is not installed")
        }

        private func requirePythonKeyring() throws {
            try requireTool("python3")
            let probe = try runTool("python3", ["-c", "import keyring"])
            guard probe.status != 0 else { return }
            try skipOrFail("Python keyring is not installed")
        }
    }
}
