import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Testing

/// Layout 3 (`LayoutThreeItems`) under writers that race each other, or that died half way:
/// what readers and listings see of an item is always one whole version of it.
///
/// Each test works in a keyring of its own, linked in the session keyring so that every
/// thread possesses it.
@Suite("kernel keyring layout 3 races")
struct LayoutThreeRaceTests {
    let kernel = KernelKeys()

    private func withTarget(_ body: (key_serial_t) throws -> Void) throws {
        try kernel.withSessionKeyring("layout3-race", body)
    }

    private static let largeComment = String(repeating: "c", count: 3000)

    private func text(_ secret: SecretBytes?) -> String? { secret.map { String(decoding: $0.makeData(), as: UTF8.self) } }

    /// A delete unlinks the item key first, and the entry and attributes key after, under the
    /// lock, only if the entry is still its own: an add of the name in between (or a delete
    /// that died after its first step) leaves the old attributes key beside the new item.
    /// A listing must not take that key for the item.
    @Test func anAttributesKeyLeftByADeleteIsNotListedAsTheItemAddedAfter() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("leftover")
            let count = 8
            for index in 0..<count {
                let account = "acct\(index)"
                try backend.add(genericItem(service, account, Data("old".utf8), [.comment: .string(Self.largeComment)]))
                let description = try ItemKeyDescription(genericItem(service, account, Data()).primaryKey)
                // The delete's first step: the item key goes, which ends the item.
                try kernel.unlink(try kernel.search(target, type: "user", description: description.text), from: target)
                try backend.add(genericItem(service, account, Data("new".utf8), [.label: .string("new")]))
            }
            let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                limit: .all, includeSecrets: true)
            let found = try backend.search(all)
            #expect(found.count == count)
            for item in found {
                #expect(text(item.secret) == "new", "\(item.attributes[.account].map { "\($0)" } ?? "?"): the old item's leftover was listed")
                #expect(item.attributes[.label] == .string("new"))
                let hasOldComment = item.attributes[.comment] != nil
                #expect(!hasOldComment)
            }
        }
    }
}
