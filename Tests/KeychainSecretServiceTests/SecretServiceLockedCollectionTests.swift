import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The backend does not ask the collection's Locked property on every call: it learns the
    /// lock state from the items a search finds, and asks only when it found no unlocked item.
    /// These calls go straight to the backend, without the availability check the CLI and
    /// the registry make first, so only that rule stands between a locked keyring and
    /// "not found" here.
    @Suite("a collection locked after use")
    struct LockedCollection {
        /// Creates, or locks, a collection through gnome-keyring's own interface, which takes
        /// the password as an argument instead of prompting. Prints the collection's path.
        static let keyringScript = """
            import sys
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            bus = open_dbus_connection(bus='SESSION')
            def call(path, interface, method, signature, body):
                address = DBusAddress(path, bus_name='org.freedesktop.secrets', interface=interface)
                return bus.send_and_get_reply(new_method_call(address, method, signature, body)).body
            service = '/org/freedesktop/secrets'
            if sys.argv[1] == 'create':
                session = call(service, 'org.freedesktop.Secret.Service', 'OpenSession', 'sv', ('plain', ('s', '')))[1]
                print(call(service, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface', 'CreateWithMasterPassword',
                           'a{sv}(oayays)', ({'org.freedesktop.Secret.Collection.Label': ('s', sys.argv[2])},
                                             (session, b'', b'collection-password', 'text/plain')))[0])
            else:
                call(service, 'org.freedesktop.Secret.Service', 'Lock', 'ao', ([sys.argv[2]],))
            """

        static func keyring(_ arguments: [String]) throws -> String {
            let run = try runTool("python3", ["-c", keyringScript] + arguments)
            try #require(run.status == 0, "python3 \(arguments.joined(separator: " ")): \(run.errorText)")
            return run.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A new collection, made with `keyring`, and a backend that stores in it.
        static func newCollection(_ purpose: String) throws -> (path: String, backend: SecretServiceBackend) {
            let path = try keyring(["create", SecretServiceTestSupport.uniqueName(purpose)])
            try #require(path.hasPrefix("/org/freedesktop/secrets/collection/"), "created \(path)")
            let environment = ProcessInfo.processInfo.environment.merging([SecretServiceSettings.collectionVariable: path]) { _, new in new }
            return (path, SecretServiceBackend(settings: SecretServiceSettings(environment: environment)))
        }

        @Test func everyOperationSaysLockedNeverNotFound() throws {
            try SecretServiceTestSupport.requireAvailable()
            // KeePassXC can lock its collection without a prompt, but not unlock it again.
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let (path, backend) = try Self.newCollection("locked")
            let service = SecretServiceTestSupport.uniqueName("locked")
            try backend.add(genericItem(service, "kept", Data("kept".utf8)))
            #expect(try SecretServiceTestSupport.secret(service, "kept", in: backend) == Data("kept".utf8))

            _ = try Self.keyring(["lock", path])
            let absent = exactQuery(service, "absent")
            expectKeychainError(errSecInteractionNotAllowed) { _ = try backend.search(exactQuery(service, "kept")) }
            expectKeychainError(errSecInteractionNotAllowed) { _ = try backend.search(absent) }
            expectKeychainError(errSecInteractionNotAllowed) { _ = try backend.search(ItemQuery(itemClass: .genericPassword)) }
            expectKeychainError(errSecInteractionNotAllowed) { _ = try backend.delete(absent) }
            expectKeychainError(errSecInteractionNotAllowed) {
                try backend.add(genericItem(service, "new", Data("new".utf8)))
            }
        }
    }
}
