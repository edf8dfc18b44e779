import Foundation
@testable import KeychainCore
@testable import KeychainEncryptedFile

// The file store's item plaintext (ItemPlaintext) and the item file around it (StoreKeys):
// what `openFile` reads from every file in items/ once its seal verifies.

private let fuzzHarnessStoreKeys: StoreKeys = {
    do {
        return try StoreKeys(masterKey: GuardedBytes(count: 32) { $0.initializeMemory(as: UInt8.self, repeating: 7) },
                             storeID: Data(repeating: 9, count: StoreHeader.storeIDBytes))
    } catch {
        fuzzFailure("no store keys: \(error)")
    }
}()

func fuzzSeeds() -> [Data] {
    fuzzSampleItems().map { item in ItemPlaintext.encode(item).withUnsafeBytes { Data($0) } }
}

func fuzzCheck(_ input: Data) {
    guard let item = try? ItemPlaintext.decode(SecretBytes(input)) else { return }
    // What decodes must encode to bytes that decode to the same encoding: nothing a reader
    // accepts can be changed by being written back.
    let encoded = ItemPlaintext.encode(item)
    guard let again = try? ItemPlaintext.decode(encoded) else { fuzzFailure("a decoded item's encoding does not decode") }
    guard ItemPlaintext.encode(again).withUnsafeBytes({ Data($0) }) == encoded.withUnsafeBytes({ Data($0) }) else {
        fuzzFailure("an item changed on its way through encode and decode")
    }
    // The same item sealed into its file and opened again, as the store reads it.
    guard let file = try? fuzzHarnessStoreKeys.sealedFile(for: item) else { return }  // too large for a file
    let location = fuzzHarnessStoreKeys.location(of: item.primaryKey)
    guard let opened = try? fuzzHarnessStoreKeys.openFile(file, at: location, path: "fuzz"),
          ItemPlaintext.encode(opened).withUnsafeBytes({ Data($0) }) == encoded.withUnsafeBytes({ Data($0) }) else {
        fuzzFailure("a sealed item file does not open to its item")
    }
}
