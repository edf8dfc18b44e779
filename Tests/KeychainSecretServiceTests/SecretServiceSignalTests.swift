import CSecretService
import Foundation
import KeychainCore
@testable import KeychainSecretService
import Testing

extension SecretServiceTests {
    /// The signals a provider sends (ItemChanged for every write, on KeePassXC a dozen of them)
    /// are dispatched after each job on the libsecret thread, on the context its proxies were
    /// made with (`csecretservice_signals_dispatch`). Queued on a context nobody iterates,
    /// they made a long-lived process grow by a little memory for every write.
    @Suite("Provider signals do not pile up")
    struct ProviderSignals {
        let backend = SecretServiceTestSupport.backend

        @Test func theSignalsOfAWriteAreDispatched() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("signals")
            try backend.add(SecretServiceTestSupport.genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(SecretServiceTestSupport.exactQuery(service, "ida", secrets: false)) }
            let before = try dispatched()
            #expect(try backend.update(SecretServiceTestSupport.exactQuery(service, "ida", secrets: false),
                                       with: ItemChanges(attributes: ItemAttributes([.comment: .string("changed")]),
                                                         secret: SecretBytes(Data("second".utf8)))) == 1)
            // The provider's signals arrive in their own time: give them two seconds.
            let deadline = Date().addingTimeInterval(2)
            var after = try dispatched()
            while after == before, Date() < deadline {
                usleep(20_000)
                after = try dispatched()
            }
            #expect(after > before, "no signal of the provider was dispatched on the libsecret thread's context")
        }

        /// The count of dispatches, read on the libsecret thread after a job of its own.
        private func dispatched() throws -> UInt {
            _ = try backend.perform("a test job", isReadOnly: true) { _ in 0 }
            return try backend.perform("a test job", isReadOnly: true) { _ in UInt(csecretservice_signals_dispatched()) }
        }
    }
}
