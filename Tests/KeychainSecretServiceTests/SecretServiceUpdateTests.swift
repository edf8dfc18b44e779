import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// An update is all or nothing: when one of its requests fails after others took effect,
    /// the items get their previous secret, attributes and label back.
    @Suite("all-or-nothing updates")
    struct AllOrNothingUpdate {
        let backend = SecretServiceTestSupport.backend

        init() throws { try SecretServiceTestSupport.requireAvailable() }

        /// Two items are updated at once, and the second is deleted by "another program" after
        /// the search found it: its writes fail on the real provider after the first item's
        /// took effect, and the first item must come back exactly as it was.
        @Test func failedSecondItemUndoesTheFirst() throws {
            let service = SecretServiceTestSupport.uniqueName("undo")
            defer { _ = try? backend.delete(ItemQuery(itemClass: .genericPassword,
                                                      constraints: ItemAttributes([.service: .string(service)]))) }
            try backend.add(genericItem(service, "first", Data("old first".utf8),
                                                                 extra: [.comment: .string("old comment")]))
            try backend.add(genericItem(service, "second", Data("old second".utf8)))
            let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                  limit: .all, includeSecrets: false)
            let before = try SecretServiceTestSupport.secret(service, "first")
            let beforeItem = try #require(try backend.search(exactQuery(service, "first")).first)

            let outcome: String = try backend.perform("a test update", holdingWriteLock: true) { session in
                let matched = try SecretServiceOperations.matches(query, in: session)
                guard matched.count == 2 else { return "found \(matched.count) items" }
                let previous = Dictionary(uniqueKeysWithValues: zip(matched.map(\.stored.path),
                                                                    try session.loadSecrets(matched.map(\.stored.path)).map { $0! }))
                // The first in the list is updated first; the other goes away before its turn.
                let vanishing = matched[1]
                _ = try session.delete(vanishing.stored)
                let targets = matched.map { match in
                    (stored: match.stored,
                     attributes: SecretServiceAttributeMapping.attributes(
                         replacingIn: match.stored.attributes, itemClass: .genericPassword,
                         with: ItemAttributes([.service: .string(service), .account: match.item.attributes[.account]!,
                                               .comment: .string("new comment")]),
                         isOurs: true),
                     label: "New label")
                }
                var update = SecretServiceUpdate(session: session)
                do {
                    try update.apply(targets, secret: SecretBytes(Data("new".utf8)), previousSecrets: previous)
                    return "the update succeeded"
                } catch let error as KeychainError {
                    return error.message
                }
            }
            #expect(outcome.contains("Nothing was changed"), "the update said: \(outcome)")
            let survivor = try #require(try backend.search(query).first)
            let account = try #require(survivor.attributes.string(.account))
            let after = try #require(try backend.search(exactQuery(service, account)).first)
            if account == "first" {
                #expect(after.secret?.makeData() == before)
                #expect(after.attributes == beforeItem.attributes, "attributes: \(after.attributes) were \(beforeItem.attributes)")
            } else {
                #expect(after.secret?.makeData() == Data("old second".utf8))
                #expect(after.attributes.string(.comment) == nil && after.attributes[.label] == nil)
            }
        }

        /// The update KeePassXC used to half-apply (`linux-keychain set` over an existing item): it
        /// now succeeds whole on every provider, attributes and label included.
        @Test func secretAndAttributesChangeTogether() throws {
            let service = SecretServiceTestSupport.uniqueName("whole")
            defer { _ = try? backend.delete(exactQuery(service, "gail", secrets: false)) }
            try backend.add(genericItem(service, "gail", Data("old".utf8)))
            let changed = try backend.update(exactQuery(service, "gail", secrets: false),
                                             with: ItemChanges(attributes: ItemAttributes([.comment: .string("c"), .label: .string("L")]),
                                                               secret: SecretBytes(Data("new".utf8))))
            #expect(changed == 1)
            let item = try #require(try backend.search(exactQuery(service, "gail")).first)
            #expect(item.secret?.makeData() == Data("new".utf8))
            #expect(item.attributes.string(.comment) == "c")
            #expect(item.attributes.string(.label) == "L")
        }
    }
}
