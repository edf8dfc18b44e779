import CSecretService
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A provider's signals (CollectionCreated for the service, ItemChanged for the collection,
    /// on KeePassXC a dozen for one update) reach only processes that subscribed to them. This
    /// one makes no proxy, of the service or of the collection, and addresses both by path; a
    /// subscription would queue every signal on a context (`csecretservice_signals_dispatch`
    /// empties it after each job), a little memory for each in a long-lived process.
    @Suite("Provider signals do not pile up", .serialized)
    struct ProviderSignals {
        let backend = SecretServiceTestSupport.backend

        /// Fails while a proxy of the service is kept (it subscribes to the service's signals).
        @Test func aNewCollectionSendsThisProcessNoSignal() throws {
            try SecretServiceTestSupport.requireAvailable()
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let before = try dispatched()
            _ = try SecretServiceTests.LockedCollection.keyring(["create", SecretServiceTestSupport.uniqueName("signals")])
            #expect(try dispatchedSoon(after: before) == before, "the service's signals reached this process")
        }

        /// Fails while a proxy of the collection is kept (its match rules bring every
        /// ItemChanged to this process).
        @Test func aWriteSendsThisProcessNoSignal() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("signals")
            try backend.add(genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(exactQuery(service, "ida", secrets: false)) }
            let before = try dispatched()
            #expect(try backend.update(exactQuery(service, "ida", secrets: false),
                                       with: ItemChanges(attributes: ItemAttributes([.comment: .string("changed")]),
                                                         secret: SecretBytes(Data("second".utf8)))) == 1)
            #expect(try dispatchedSoon(after: before) == before, "the write's signals reached this process")
        }

        /// The count of dispatches once it moved past `before`, or after two seconds: the
        /// provider's signals arrive in their own time.
        private func dispatchedSoon(after before: UInt) throws -> UInt {
            let deadline = Date().addingTimeInterval(2)
            var after = try dispatched()
            while after == before, Date() < deadline {
                usleep(20_000)
                after = try dispatched()
            }
            return after
        }

        /// The count of dispatches, read on the libsecret thread after a job of its own.
        private func dispatched() throws -> UInt {
            _ = try backend.perform("a test job", isReadOnly: true) { _ in 0 }
            return try backend.perform("a test job", isReadOnly: true) { _ in UInt(csecretservice_signals_dispatched()) }
        }
    }
}
