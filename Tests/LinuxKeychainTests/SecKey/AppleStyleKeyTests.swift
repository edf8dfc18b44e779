// Written as Apple code keeps a NIST P-256 key (Apple's "Storing CryptoKit Keys in the
// Keychain" sample without CryptoKit, and JWT ES256 signers): only the `import LinuxKeychain`
// line differs from the Apple version (`import Security`).
import Foundation
import LinuxKeychain
import Testing

/// An ES256 signer over a key given as its X9.63 representation.
struct ES256Signer {
    let privateKey: SecKey

    init(x963 x963Representation: Data) throws {
        let x963 = x963Representation
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(x963 as CFData, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: kSecAttrKeyClassPrivate] as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        privateKey = key
    }

    func sign(_ data: Data) throws -> Data {
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageX962SHA256, data as CFData, &error) as Data? else {
            throw error!.takeRetainedValue() as any Error
        }
        return signature
    }

    func verify(_ signature: Data, of data: Data) -> Bool {
        guard let publicKey = SecKeyCopyPublicKey(privateKey),
              SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA256) else { return false }
        var error: Unmanaged<CFError>?
        return SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, data as CFData, signature as CFData, &error)
    }
}

@Suite("SecKey: Apple's P-256 idiom, unchanged")
struct AppleStyleKeyTests {
    @Test func anES256SignerWorks() throws {
        let signer = try ES256Signer(x963: SecKeyTests.openSSLKey)
        let token = Data("header.payload".utf8)
        let signature = try signer.sign(token)
        #expect(signer.verify(signature, of: token))
        #expect(!signer.verify(signature, of: Data("header.other".utf8)))
    }

    @Test func aBadKeyThrowsAnOSStatusError() {
        #expect {
            try ES256Signer(x963: Data(repeating: 4, count: 97))
        } throws: { error in
            let error = error as NSError
            return error.domain == kCFErrorDomainOSStatus as String && error.code == Int(errSecParam)
        }
    }
}
