import Foundation
@testable import KeychainCLI
@testable import KeychainCore

// One item of an export bundle (BundleItemCoding), as `linux-keychain import` decodes it from
// each decrypted message. The bundle's framing around it is authenticated encryption under an
// Argon2id key, which random bytes do not get through; this is what a damaged or hostile
// bundle made with a known passphrase reaches.

func fuzzSeeds() -> [Data] {
    fuzzSampleItems().map { BundleItemCoding.encode($0).withUnsafeBytes { Data($0) } }
}

func fuzzCheck(_ input: Data) {
    let decoded: KeychainItem
    do {
        decoded = try input.withUnsafeBytes { try BundleItemCoding.decode($0) }
    } catch let error as KeychainError {
        guard error.status == errSecDecode else { fuzzFailure("a bad item gave status \(error.status), not errSecDecode") }
        return
    } catch {
        fuzzFailure("a bad item threw \(type(of: error)), not a KeychainError")
    }
    let encoded = BundleItemCoding.encode(decoded).withUnsafeBytes { Data($0) }
    guard let again = try? encoded.withUnsafeBytes({ try BundleItemCoding.decode($0) }),
          BundleItemCoding.encode(again).withUnsafeBytes({ Data($0) }) == encoded else {
        fuzzFailure("an item changed on its way through encode and decode")
    }
}
