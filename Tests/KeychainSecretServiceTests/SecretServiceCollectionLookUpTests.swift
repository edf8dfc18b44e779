import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The collection is looked up without a proxy (`csecretservice_collection_look_up`): an
    /// alias with `ReadAlias` (and, for the availability check, the lock state of the alias's
    /// own path in the same wait), a path by asking its lock state. What the proxy told before
    /// must still be told: a collection that is missing or locked, never "not found".
    @Suite("collection look-up", .serialized)
    struct CollectionLookUp {
        /// A backend of its own (a fresh connection, so the look-up is made again) on `collection`.
        static func backend(on collection: String) -> SecretServiceBackend {
            let environment = ProcessInfo.processInfo.environment.merging([SecretServiceSettings.collectionVariable: collection]) { _, new in new }
            return SecretServiceBackend(settings: SecretServiceSettings(environment: environment))
        }

        static func expectMissing(_ collection: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let backend = Self.backend(on: collection)
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("a backend on '\(collection)' is available", sourceLocation: sourceLocation)
                return
            }
            #expect(reason.status == errSecInteractionNotAllowed, "\(reason)", sourceLocation: sourceLocation)
            #expect(reason.message.contains("has no keyring '\(collection)'"), "\(reason.message)", sourceLocation: sourceLocation)
            expectKeychainError(errSecInteractionNotAllowed, sourceLocation: sourceLocation) {
                _ = try backend.search(exactQuery("lkc-ss-missing", "ida"))
            }
        }

        @Test func aCollectionThatIsNotThereIsMissingNeverNotFound() throws {
            try SecretServiceTestSupport.requireAvailable()
            Self.expectMissing("lkc_no_such_alias")
            Self.expectMissing("lkc-no-such-alias")
            Self.expectMissing("/org/freedesktop/secrets/collection/lkc_no_such_collection")
            // Not an object path at all: GDBus would refuse to send it.
            Self.expectMissing("/org/freedesktop/secrets/collection/not a path")
            // Objects the provider serves that are no collection: the service itself, and the
            // root. Asking them for Collection.Locked fails with InvalidArgs ("no such
            // interface"), which is no collection either, not a provider error.
            Self.expectMissing("/org/freedesktop/secrets")
            Self.expectMissing("/")
        }

        /// What `alias` names (ReadAlias), and with a `path`, points it there first (SetAlias).
        @discardableResult
        static func alias(_ alias: String, pointingAt path: String? = nil) throws -> String {
            let script = """
                import sys
                from jeepney import DBusAddress, new_method_call
                from jeepney.io.blocking import open_dbus_connection
                bus = open_dbus_connection(bus='SESSION')
                address = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                                      interface='org.freedesktop.Secret.Service')
                if len(sys.argv) > 2:
                    reply = bus.send_and_get_reply(new_method_call(address, 'SetAlias', 'so', (sys.argv[1], sys.argv[2])))
                    if reply.header.message_type.name != 'method_return': sys.exit(f'SetAlias: {reply.body}')
                print(bus.send_and_get_reply(new_method_call(address, 'ReadAlias', 's', (sys.argv[1],))).body[0])
                """
            let run = try runTool("python3", ["-c", script, alias] + (path.map { [$0] } ?? []))
            try #require(run.status == 0, "alias \(alias) \(path ?? ""): \(run.errorText)")
            return run.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A locked collection behind the alias is locked to the availability check, which reads
        /// the lock state of the alias's path (`.../aliases/default`, asked with ReadAlias), and
        /// to a fresh process's first search. gnome-keyring lets only `default` be re-pointed,
        /// so the test points it at a collection of its own for a moment, and back.
        @Test func aLockedCollectionBehindTheDefaultAliasIsLocked() throws {
            try SecretServiceTestSupport.requireAvailable()
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let (path, _) = try SecretServiceTests.LockedCollection.newCollection("alias")
            let previous = try Self.alias("default")
            try Self.alias("default", pointingAt: path)
            defer { _ = try? Self.alias("default", pointingAt: previous) }
            let unlocked = Self.backend(on: "default").availability()
            #expect(unlocked.isAvailable && unlocked.explanation.contains(path), "\(unlocked.explanation)")
            _ = try SecretServiceTests.LockedCollection.keyring(["lock", path])
            guard case .unavailable(let reason) = Self.backend(on: "default").availability() else {
                Issue.record("the locked collection behind the default alias is available")
                return
            }
            #expect(reason.status == errSecInteractionNotAllowed, "\(reason)")
            #expect(reason.message.contains("is locked"), "\(reason.message)")
            expectKeychainError(errSecInteractionNotAllowed) {
                _ = try Self.backend(on: "default").search(exactQuery("lkc-ss-alias", "ida"))
            }
        }
    }
}
