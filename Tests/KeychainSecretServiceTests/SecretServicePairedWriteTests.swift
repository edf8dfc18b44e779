import Foundation
import KeychainCore
import KeychainSecretService
import Testing

extension SecretServiceTests {
    /// An update of one item that changes its attributes and its secret, as every
    /// `SecItemUpdate` of a secret does (the modification date is an attribute), sends both
    /// writes at once (`SecretServiceUpdate.applyTogether`): it waits for one round trip, not two.
    @Suite("An update of one item sends its attributes and its secret together", .serialized)
    struct PairedWrite {
        let backend = SecretServiceTestSupport.backend

        @Test func theSecretGoesOutBeforeTheAttributesAreAnswered() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("paired")
            try backend.add(SecretServiceTestSupport.genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(SecretServiceTestSupport.exactQuery(service, "ida", secrets: false)) }
            let query = SecretServiceTestSupport.exactQuery(service, "ida", secrets: false)
            var modified = Date()
            var updated = 0
            let bus = try DBusMonitor.bus(during: { attempt in
                // A new date each time, so that every attempt writes attributes.
                modified = Date(timeIntervalSince1970: 1_800_000_000.5 + Double(attempt))
                let changes = ItemChanges(attributes: ItemAttributes([.modificationDate: .date(modified)]),
                                          secret: SecretBytes(Data("second".utf8)))
                updated = try backend.update(query, with: changes)
            }, showing: { $0.sent("SetSecret", whileAwaiting: "Set") })
            #expect(updated == 1)
            let item = try #require(try backend.search(SecretServiceTestSupport.exactQuery(service, "ida")).first)
            #expect(item.secret?.makeData() == Data("second".utf8))
            #expect(item.attributes[.modificationDate] == .date(modified))
            let together = bus.sent("SetSecret", whileAwaiting: "Set")
            #expect(together, "the secret did not go out between the attributes and their answer")
        }
    }
}
