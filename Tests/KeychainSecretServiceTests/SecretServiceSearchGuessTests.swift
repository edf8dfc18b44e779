import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A search that found one item last time is sent with that item's read, in one round trip
    /// (`LibsecretSession.searchAhead`); the read counts only when the search finds
    /// that item alone again. The changes are made through a second backend, whose connection
    /// has a memory of its own, so that the first still guesses the item it found before.
    @Suite("A repeated search reads the item it found before", .serialized)
    struct SearchGuess {
        let backend = SecretServiceTestSupport.backend
        let otherProgram = SecretServiceBackend()

        @Test func aRepeatedGetSendsTheReadBeforeTheSearchIsAnswered() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("repeat")
            try backend.add(genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(everyItem(of: service)) }
            let query = dataOnlyQuery(service, "ida")
            #expect(try secret(query) == "first")
            var found: [KeychainItem] = []
            let bus = try DBusMonitor.bus(during: { _ in found = try backend.search(query) }, showing: {
                $0.sent("Get", whileAwaiting: "SearchItems") && $0.sent("GetSecrets", whileAwaiting: "SearchItems")
            })
            #expect(found.first?.secret?.makeData() == Data("first".utf8))
            let readWithSearch = bus.sent("Get", whileAwaiting: "SearchItems")
            let secretWithSearch = bus.sent("GetSecrets", whileAwaiting: "SearchItems")
            #expect(readWithSearch, "the item's attributes were not asked for between the search and its answer")
            #expect(secretWithSearch, "the secret was not asked for between the search and its answer")
        }

        /// An update reads the item's properties (`GetAll`, no secret) with the search too.
        @Test func aRepeatedUpdateSendsTheReadBeforeTheSearchIsAnswered() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("update")
            try backend.add(genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(everyItem(of: service)) }
            let query = exactQuery(service, "ida", secrets: false)
            #expect(try backend.update(query, with: ItemChanges(secret: SecretBytes(Data("second".utf8)))) == 1)
            var updated = 0
            let bus = try DBusMonitor.bus(during: { _ in
                updated = try backend.update(query, with: ItemChanges(secret: SecretBytes(Data("third".utf8))))
            }, showing: { $0.sent("GetAll", whileAwaiting: "SearchItems") })
            #expect(updated == 1)
            #expect(try secret(dataOnlyQuery(service, "ida")) == "third")
            let together = bus.sent("GetAll", whileAwaiting: "SearchItems")
            #expect(together, "the item's properties were not asked for between the search and its answer")
            let search = try #require(bus.firstCall("SearchItems"), "no SearchItems seen")
            // On KWallet the new secret is read back once set (kwalletd 5 may store another).
            let read = bus.firstCall("GetSecrets", from: search.sender)
            let readBack = SecretServiceTestSupport.provider == "kwallet"
                && bus.firstCall("SetSecret", from: search.sender).map { set in read.map { $0.index > set.index } ?? true } == true
            #expect(read == nil || readBack, "an update of the secret read the old one")
        }

        /// An item this process deleted is no longer guessed: the next search goes out alone.
        @Test func aDeletedItemIsNotGuessed() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("deleted")
            try backend.add(genericItem(service, "ida", Data("gone".utf8)))
            let query = dataOnlyQuery(service, "ida")
            #expect(try secret(query) == "gone")
            #expect(try backend.delete(everyItem(of: service)) == 1)
            var found: [KeychainItem] = [genericItem(service, "ida", Data())]
            let lines = try DBusMonitor.lines { found = try backend.search(query) }
            #expect(found.isEmpty)
            let bus = BusLines(lines)
            let search = try #require(bus.firstCall("SearchItems"), "no SearchItems seen")
            let answered = try #require(bus.reply(to: search), "no answer to SearchItems seen")
            // The miss asks for the collection's Locked property with the search, never for the item.
            #expect(bus.firstCall("Get", from: search.sender, to: .item) == nil, "the deleted item was read")
            #expect(bus.firstCall("GetAll", from: search.sender, to: .item) == nil, "the deleted item was read")
            _ = answered
            #expect(bus.firstCall("GetSecrets", from: search.sender) == nil, "the deleted item's secret was asked for")
        }

        /// A search with no item to guess asks for the collection's lock state with it, so that a
        /// miss, which must tell an empty collection from a locked one, waits once.
        @Test func aMissAsksTheLockStateBeforeTheSearchIsAnswered() throws {
            try SecretServiceTestSupport.requireAvailable()
            let query = dataOnlyQuery(SecretServiceTestSupport.uniqueName("absent"), "ida")
            var found: [KeychainItem] = [genericItem("placeholder", "ida", Data())]
            let bus = try DBusMonitor.bus(during: { _ in found = try backend.search(query) }, showing: {
                $0.sent("Get", to: .collection, whileAwaiting: "SearchItems")
            })
            #expect(found.isEmpty)
            let together = bus.sent("Get", to: .collection, whileAwaiting: "SearchItems")
            #expect(together, "the lock state was not asked for between the search and its answer")
        }

        /// The guessed item is still there, but the search finds a second one beside it: a
        /// synchronizable twin found first must not hide the item the query means.
        @Test func anItemFoundBesideTheGuessedOneIsRead() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("twin")
            try backend.add(genericItem(service, "ida", Data("synchronized".utf8),
                                                                 extra: [.synchronizable: .bool(true)]))
            defer { _ = try? backend.delete(everyItem(of: service)) }
            let query = dataOnlyQuery(service, "ida")
            // Found alone by the search, then left out by the match: the guess for next time.
            #expect(try backend.search(query).isEmpty, "a query without kSecAttrSynchronizable found the synchronizable item")
            try otherProgram.add(genericItem(service, "ida", Data("local".utf8)))
            #expect(try secret(query) == "local")
            #expect(try secret(query) == "local", "the second search (no guess: it found two items) went wrong")
        }

        @Test func everyItemIsReadWhenTheSearchFindsMoreThanTheGuessedOne() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("more")
            try backend.add(genericItem(service, "ida", Data("one".utf8)))
            defer { _ = try? backend.delete(everyItem(of: service)) }
            var query = everyItem(of: service)
            query.includeSecrets = true
            #expect(try backend.search(query).count == 1)
            try otherProgram.add(genericItem(service, "jo", Data("two".utf8)))
            let secrets = try backend.search(query).compactMap { $0.secret.map { String(decoding: $0.makeData(), as: UTF8.self) } }
            #expect(secrets.sorted() == ["one", "two"])
        }

        /// The guessed item is deleted and another added with the same attributes (perhaps at
        /// the same path): the answer is the new item's.
        @Test func anItemReplacedUnderTheGuessedPathIsReadAfresh() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("replaced")
            try backend.add(genericItem(service, "ida", Data("old".utf8)))
            defer { _ = try? backend.delete(everyItem(of: service)) }
            let query = dataOnlyQuery(service, "ida")
            #expect(try secret(query) == "old")
            #expect(try otherProgram.delete(everyItem(of: service)) == 1)
            try otherProgram.add(genericItem(service, "ida", Data("new".utf8)))
            #expect(try secret(query) == "new")
            #expect(try otherProgram.delete(everyItem(of: service)) == 1)
            #expect(try backend.search(query).isEmpty, "a deleted item was found")
        }

        private func dataOnlyQuery(_ service: String, _ account: String) -> ItemQuery {
            var query = exactQuery(service, account)
            query.includeAttributes = false
            return query
        }

        private func everyItem(of service: String) -> ItemQuery {
            var query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]))
            query.matchesAnySynchronizable = true
            return query
        }

        private func secret(_ query: ItemQuery) throws -> String? {
            try backend.search(query).first?.secret.map { String(decoding: $0.makeData(), as: UTF8.self) }
        }
    }
}
