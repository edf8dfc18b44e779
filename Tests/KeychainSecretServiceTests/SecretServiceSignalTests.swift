import CSecretService
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The signals a provider sends for the service (CollectionCreated, ...) are dispatched
    /// after each job on the libsecret thread, on the context its service proxy was made with
    /// (`csecretservice_signals_dispatch`). Queued on a context nobody iterates, they made a
    /// long-lived process grow by a little memory for every one. The signals of every write
    /// (ItemChanged, on KeePassXC a dozen for one update) are the collection's, which this
    /// process no longer subscribes to: it addresses the collection by path, without a proxy.
    @Suite("Provider signals do not pile up", .serialized)
    struct ProviderSignals {
        let backend = SecretServiceTestSupport.backend

        @Test func theSignalsOfTheServiceAreDispatched() throws {
            try SecretServiceTestSupport.requireAvailable()
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let before = try dispatched()
            _ = try SecretServiceTests.LockedCollection.keyring(["create", SecretServiceTestSupport.uniqueName("signals")])
            #expect(try dispatchedSoon(after: before) > before,
                    "no signal of the provider was dispatched on the libsecret thread's context")
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
