public import Foundation
import CLibcrypto
import KeychainCore

/// The parameters of `SecKeyCopyKeyExchangeResult`, with Apple's string values (SecKey.h).
// Sendable although it holds an NSString: the string is an immutable copy made at init.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's string for the parameter.
    public let rawValue: CFString
    /// The parameter named `rawValue`.
    public init(rawValue: CFString) { self.rawValue = ConstantString(string: rawValue as String) }
    private init(named name: String) { rawValue = ConstantString(string: name) }

    /// Equal when the names are.
    public static func == (lhs: SecKeyKeyExchangeParameter, rhs: SecKeyKeyExchangeParameter) -> Bool {
        lhs.rawValue as String == rhs.rawValue as String
    }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }

    /// The bytes the X9.63 KDF makes (a number): required by the `…X963…` algorithms.
    public static let requestedSize = SecKeyKeyExchangeParameter(named: "requestedSize")
    /// The KDF's SharedInfo (Data), optional; empty when absent.
    public static let sharedInfo = SecKeyKeyExchangeParameter(named: "sharedInfo")
}

/// Elliptic-curve Diffie-Hellman between `privateKey` and `publicKey`, as on Apple platforms:
/// `.ecdhKeyExchangeStandard` (and `Cofactor`, the same on these curves) give the shared secret,
/// the x-coordinate of the shared point in the curve's field size; the `…X963SHA…` variants give
/// `requestedSize` bytes of the ANSI X9.63 KDF over it with `sharedInfo`, the parameters being
/// ignored otherwise.
///
/// Nil with the error set: `errSecUnimplemented` for another algorithm or a key that is not an
/// EC private key (see `SecKeyIsAlgorithmSupported`); `errSecParam` for a public key on another
/// curve or off it, a missing or out-of-range `requestedSize` (1 byte to 16 MiB) or a
/// `sharedInfo` that is not Data. The result is the caller's to clear.
public func SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                                        _ parameters: CFDictionary,
                                        _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    answering(error) { () throws(NSError) -> CFData in
        guard SecKeyIsAlgorithmSupported(privateKey, .keyExchange, algorithm), let kdfDigest = algorithm.keyExchange,
              case .ec(let curve) = privateKey.kind else {
            throw NSError.keychainError(errSecUnimplemented, "\(algorithm.rawValue) is not supported by \(privateKey) for a key exchange.")
        }
        guard publicKey.kind == privateKey.kind else {
            throw NSError.keychainError(errSecParam, "The public key (\(publicKey)) is not on the private key's curve P-\(curve.rawValue).")
        }
        let options = SecKeyParameters(parameters as NSDictionary)
        var length = curve.fieldBytes
        var sharedInfo: Data?
        if kdfDigest != nil {
            length = try options.requestedSize()
            guard length > 0, length <= Int(CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT) else {
                throw NSError.keychainError(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize must be 1 to \(CLIBCRYPTO_ECDH_MAXIMUM_OUTPUT) bytes, not \(length).")
            }
            sharedInfo = try options.sharedInfo()
        }
        var result = try Libcrypto.ecdh(privateKey.representation, publicKey.publicRepresentation, curve,
                                         kdfDigest: kdfDigest, sharedInfo: sharedInfo ?? Data(), length: length)
        defer { SecretBytes.zero(&result) }
        return NSData(data: result)
    }
}
