import CSodium
import Foundation
@testable import KeychainCore
@testable import KeychainEncryptedFile

// The file store's header (StoreHeader), parsed from store-header before any key derivation.
// Each input is parsed as it is, and once more with its checksum made to match, so that the
// fuzzer reaches the fields behind the checksum (KDF settings and the rest).

func fuzzSeeds() -> [Data] {
    var seeds: [Data] = []
    // Made by the real encoder with the cheapest accepted KDF settings, so seeding stays fast.
    for passphrase in ["correct horse", ""] {
        do {
            let masterKey = try GuardedBytes(count: 32) { $0.initializeMemory(as: UInt8.self, repeating: 3) }
            let header = try StoreHeader(wrapping: masterKey, storeID: Data(repeating: 5, count: StoreHeader.storeIDBytes),
                                         passphrase: SecretBytes(Data(passphrase.utf8)), kdf: KDFParameters.minimum)
            seeds.append(header.encoded)
        } catch {
            fuzzFailure("no header to seed with: \(error)")
        }
    }
    return seeds
}

func fuzzCheck(_ input: Data) {
    parse(input)
    guard input.count == StoreHeader.size else { return }
    var repaired = input.prefix(StoreHeader.size - StoreHeader.checksumBytes)
    repaired.append(Sodium.checksum(Data(repaired)))
    parse(Data(repaired))
}

private func parse(_ bytes: Data) {
    do {
        let header = try StoreHeader(parsing: bytes, path: "fuzz/store-header")
        // A header that parses must write back to exactly the bytes it was read from: the
        // authenticated part is rebuilt from the fields when the passphrase is checked.
        guard header.encoded == bytes else { fuzzFailure("a parsed header does not encode to its bytes") }
        guard header.kdf.isAcceptable else { fuzzFailure("a header with unaccepted KDF settings parsed") }
    } catch let error as KeychainError {
        guard error.status == errSecDecode else { fuzzFailure("a bad header gave status \(error.status), not errSecDecode") }
    } catch {
        fuzzFailure("a bad header threw \(type(of: error)), not a KeychainError")
    }
}
