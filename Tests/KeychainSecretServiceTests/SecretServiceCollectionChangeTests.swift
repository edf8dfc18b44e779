import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A long-lived process keeps the collection's path from its first look-up (no proxy
    /// watches it). What happens to the collection behind it between two calls must still be
    /// told: a collection deleted meanwhile is missing (`errSecInteractionNotAllowed`), never
    /// "not found", and nothing is written anywhere else.
    @Suite("a collection that changes under a running process", .serialized)
    struct CollectionChange {
        /// Deletes the collection at `path` through the specification's Collection.Delete,
        /// which gnome-keyring does without a prompt.
        static func delete(_ path: String) throws {
            let script = """
                import sys
                from jeepney import DBusAddress, new_method_call
                from jeepney.io.blocking import open_dbus_connection
                bus = open_dbus_connection(bus='SESSION')
                address = DBusAddress(sys.argv[1], bus_name='org.freedesktop.secrets',
                                      interface='org.freedesktop.Secret.Collection')
                reply = bus.send_and_get_reply(new_method_call(address, 'Delete'))
                if reply.header.message_type.name != 'method_return' or reply.body[0] != '/': sys.exit(f'Delete: {reply.body}')
                """
            let run = try runTool("python3", ["-c", script, path])
            try #require(run.status == 0, "delete \(path): \(run.errorText)")
        }

        @Test func aCollectionDeletedBetweenCallsIsMissingAndNothingIsWritten() throws {
            try SecretServiceTestSupport.requireAvailable()
            try SecretServiceTestSupport.requireGnomeKeyring("creating and deleting a collection without a prompt")
            let (path, backend) = try SecretServiceTests.LockedCollection.newCollection("deleted")
            let service = SecretServiceTestSupport.uniqueName("deleted")
            try backend.add(genericItem(service, "kept", Data("kept".utf8)))
            #expect(try SecretServiceTestSupport.secret(service, "kept", in: backend) == Data("kept".utf8))

            try Self.delete(path)
            expectKeychainError(errSecInteractionNotAllowed) { _ = try backend.search(exactQuery(service, "kept")) }
            expectKeychainError(errSecInteractionNotAllowed) {
                try backend.add(genericItem(service, "new", Data("new".utf8)))
            }
            // Once more after the connection forgot the collection: still missing.
            expectKeychainError(errSecInteractionNotAllowed) {
                try backend.add(genericItem(service, "new", Data("new".utf8)))
            }
            let everywhere = ItemQuery(itemClass: .genericPassword,
                                       constraints: ItemAttributes([.service: .string(service)]), limit: .all)
            #expect(try SecretServiceTestSupport.backend.search(everywhere).isEmpty, "an item was written elsewhere")
        }

        /// The `default` alias re-pointed while a process runs: the process keeps the
        /// collection it looked up (its items stay where it reads them) until its connection
        /// is made afresh; a new process follows the alias.
        @Test func aProcessKeepsItsCollectionWhenTheDefaultAliasMoves() throws {
            try SecretServiceTestSupport.requireAvailable()
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let (path, _) = try SecretServiceTests.LockedCollection.newCollection("moved")
            let previous = try CollectionLookUp.alias("default")
            let running = CollectionLookUp.backend(on: "default")
            let service = SecretServiceTestSupport.uniqueName("moved")
            try running.add(genericItem(service, "before", Data("before".utf8)))
            try CollectionLookUp.alias("default", pointingAt: path)
            defer { _ = try? CollectionLookUp.alias("default", pointingAt: previous) }

            try running.add(genericItem(service, "after", Data("after".utf8)))
            #expect(try SecretServiceTestSupport.secret(service, "before", in: running) == Data("before".utf8))
            #expect(try SecretServiceTestSupport.secret(service, "after", in: running) == Data("after".utf8))
            let fresh = CollectionLookUp.backend(on: "default")
            #expect(fresh.availability().explanation.contains(path), "\(fresh.availability().explanation)")
            #expect(try SecretServiceTestSupport.secret(service, "after", in: fresh) == nil)
            _ = try running.delete(ItemQuery(itemClass: .genericPassword,
                                             constraints: ItemAttributes([.service: .string(service)]), limit: .all))
        }
    }
}
