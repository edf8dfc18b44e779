import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// What a process that makes one call sends once its connection is open: the collection is
    /// looked up by `ReadAlias` alone (no proxy, so no `GetAll` and no match rules), with the
    /// provider's process id and, for the availability check, the lock state of the alias's own
    /// path in the same wait.
    @Suite("a one-shot process", .serialized)
    struct OneShot {
        let backend = SecretServiceTestSupport.backend

        /// `linux-keychain get` on a fresh connection: after `OpenSession`, three waits (the look-up
        /// with the availability check's lock state; the search with the collection's lock
        /// state; the item's attributes with its secret) and seven requests. Before, the look-up
        /// made a collection proxy: twelve requests in eleven waits, as this test counts them.
        @Test func aGetSendsSevenRequestsInThreeWaits() throws {
            try SecretServiceTestSupport.requireAvailable()
            let cli = try SecretServiceTestSupport.cli()
            let service = SecretServiceTestSupport.uniqueName("oneshot")
            try backend.add(genericItem(service, "ida", Data("one shot".utf8)))
            defer { _ = try? backend.delete(exactQuery(service, "ida", secrets: false)) }
            var output = ""
            let expected = [
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
                seen = Self.afterOpenSession(bus)
                return seen.waits <= 3
            })
            #expect(output == "one shot")
            #expect(seen.calls == expected, "requests after OpenSession: \(seen.calls)")
            // KeePassXC answers so fast that GDBus's worker thread, which writes one message at
            // a time, has rarely sent the second request of a pair before the first is answered;
            // the waits show on gnome-keyring, which takes longer over each request.
            if SecretServiceTestSupport.provider == "gnome-keyring" {
                #expect(seen.waits == 3, "waits after OpenSession: \(seen.waits) for \(seen.calls)")
            }
        }

        /// The calls of the process that opened a session, after its OpenSession was answered,
        /// with item and collection paths written as ITEM and COLLECTION.
        private static func afterOpenSession(_ bus: BusLines) -> (calls: [String], waits: Int) {
            guard let open = bus.firstCall("OpenSession"), let answered = bus.reply(to: open) else { return (["no OpenSession"], 0) }
            let (calls, waits) = bus.requests(from: open.sender, after: answered)
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
