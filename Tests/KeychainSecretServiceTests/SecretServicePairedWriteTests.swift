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
            let modified = Date(timeIntervalSince1970: 1_800_000_000.5)
            let changes = ItemChanges(attributes: ItemAttributes([.modificationDate: .date(modified)]),
                                      secret: SecretBytes(Data("second".utf8)))
            var updated = 0
            let lines = try DBusMonitor.lines {
                updated = try backend.update(SecretServiceTestSupport.exactQuery(service, "ida", secrets: false), with: changes)
            }
            #expect(updated == 1)
            let item = try #require(try backend.search(SecretServiceTestSupport.exactQuery(service, "ida")).first)
            #expect(item.secret?.makeData() == Data("second".utf8))
            #expect(item.attributes[.modificationDate] == .date(modified))
            let bus = BusLines(lines)
            let attributes = try #require(bus.firstCall("Set", to: .item), "no Properties.Set seen")
            let answered = try #require(bus.reply(to: attributes), "no answer to Properties.Set seen")
            let secret = try #require(bus.firstCall("SetSecret", from: attributes.sender), "no SetSecret seen")
            #expect(attributes.index < secret.index, "the secret went out before the attributes")
            #expect(secret.index < answered, "the secret went out only after the attributes were answered")
        }

        /// KeePassXC refuses a Properties.Set(Attributes) whose value looks like one of its field
        /// references (`{REF:T@I:...}`), and takes a SetSecret after it: sent together, the update
        /// would change the secret and fail. All or nothing means: either both parts took effect,
        /// or neither did (gnome-keyring takes the value; KeePassXC must refuse the update).
        @Test func attributesTheProviderRefusesLeaveTheSecretAsItWas() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("refused")
            try backend.add(SecretServiceTestSupport.genericItem(service, "ines", Data("first".utf8),
                                                                 extra: [.comment: .string("plain")]))
            defer { _ = try? backend.delete(SecretServiceTestSupport.exactQuery(service, "ines", secrets: false)) }
            let reference = "{REF:T@I:0123456789ABCDEF0123456789ABCDEF}"
            let changes = ItemChanges(attributes: ItemAttributes([.comment: .string(reference)]),
                                      secret: SecretBytes(Data("second".utf8)))
            let outcome = Result { try backend.update(SecretServiceTestSupport.exactQuery(service, "ines", secrets: false),
                                                      with: changes) }
            let item = try #require(try backend.search(SecretServiceTestSupport.exactQuery(service, "ines")).first)
            switch outcome {
            case .success:
                #expect(SecretServiceTestSupport.provider != "keepassxc", "KeePassXC took a field reference as a value")
                #expect(item.secret?.makeData() == Data("second".utf8))
                #expect(item.attributes.string(.comment) == reference)
            case .failure(let error):
                #expect(item.secret?.makeData() == Data("first".utf8), "the failed update changed the secret: \(error)")
                #expect(item.attributes.string(.comment) == "plain")
            }
        }
    }
}
