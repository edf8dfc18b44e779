import Foundation
@testable import KeychainCore

// The persistent reference (PrimaryKey(encoded:)): the Data an app gets from
// kSecReturnPersistentRef, stores where it likes and hands back as kSecValuePersistentRef.

func fuzzSeeds() -> [Data] {
    fuzzSampleItems().map(\.primaryKey.encoded)
        + [PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes()).encoded]
}

func fuzzCheck(_ input: Data) {
    guard let key = PrimaryKey(encoded: input) else { return }
    guard let again = PrimaryKey(encoded: key.encoded), again == key else {
        fuzzFailure("a decoded persistent reference does not survive encode and decode")
    }
    _ = key.readableName
}
