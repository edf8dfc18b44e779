import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// What a process that makes one call sends once its connection is open: no proxy of the
    /// service or the collection, so no `GetAll` and no match rules; the transfer session asked
    /// for first, and the collection looked up by `ReadAlias` (with the provider's process id and,
    /// for the availability check, the lock state of the alias's own path) while the provider
    /// works out the session's key.
    @Suite("a one-shot process", .serialized)
    struct OneShot {
        let backend = SecretServiceTestSupport.backend

        /// `linux-keychain get` on a fresh connection: from `OpenSession` on, nine requests in three
        /// waits (the session, the provider's name and the look-up; the search with the
        /// collection's lock state; the item's attributes with its secret). Waiting for the
        /// session before the look-up took a wait more; a collection proxy, eight more.
        @Test func aGetSendsNineRequestsInThreeWaits() throws {
            try SecretServiceTestSupport.requireAvailable()
            let cli = try SecretServiceTestSupport.cli()
            let service = SecretServiceTestSupport.uniqueName("oneshot")
            try backend.add(genericItem(service, "ida", Data("one shot".utf8)))
            defer { _ = try? backend.delete(exactQuery(service, "ida", secrets: false)) }
            var output = ""
            let expected = [
                "OpenSession /org/freedesktop/secrets",
                "GetNameOwner /org/freedesktop/DBus",
                "ReadAlias /org/freedesktop/secrets",
                "Get /org/freedesktop/secrets/aliases/default",
                "GetConnectionUnixProcessID /org/freedesktop/DBus",
                "SearchItems COLLECTION",
                "Get COLLECTION",
                "Get ITEM",
                "GetSecrets /org/freedesktop/secrets",
            ]
            var seen: (calls: [String], waits: Int) = ([], 0)
            // Retried: on a busy machine a request sent together with another can reach the bus
            // after the other's answer, which counts as a wait of its own (see DBusMonitor.bus).
            _ = try DBusMonitor.bus(during: { _ in
                let run = try runTool(cli, ["--backend", "secret-service", "get", service, "ida"])
                output = run.outputText + run.errorText
            }, showing: { bus in
                seen = Self.fromOpenSession(bus)
                return seen.waits <= 3
            })
            #expect(output == "one shot")
            #expect(seen.calls == expected, "requests from OpenSession on: \(seen.calls)")
            // KeePassXC answers so fast that GDBus's worker thread, which writes one message at
            // a time, has rarely sent the second request of a pair before the first is answered;
            // the waits show on gnome-keyring, which takes longer over each request.
            if SecretServiceTestSupport.provider == "gnome-keyring" {
                #expect(seen.waits == 3, "waits from OpenSession on: \(seen.waits) for \(seen.calls)")
            }
        }

        /// The calls of the process that opened a session, from its OpenSession on, with item and
        /// collection paths written as ITEM and COLLECTION.
        private static func fromOpenSession(_ bus: BusLines) -> (calls: [String], waits: Int) {
            guard let open = bus.firstCall("OpenSession") else { return (["no OpenSession"], 0) }
            let (calls, waits) = bus.requests(from: open.sender, after: open.index - 1)
            let collection = "/org/freedesktop/secrets/collection/"
            return (calls.map { call in
                guard let space = call.firstIndex(of: " ") else { return call }
                let path = call[call.index(after: space)...]
                guard path.hasPrefix(collection) else { return call }
                let depth = path.dropFirst(collection.count).split(separator: "/").count
                return "\(call[..<space]) \(depth == 1 ? "COLLECTION" : "ITEM")"
            }, waits)
        }
    }
}
