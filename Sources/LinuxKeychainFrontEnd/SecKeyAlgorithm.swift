public import Foundation

/// Apple's algorithm names for the SecKey functions, with Apple's string values (SecKey.h).
/// Only the ECDSA ones below are supported; any other is answered `errSecUnimplemented`.
// Sendable although it holds an NSString: the string is an immutable copy made at init.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, @unchecked Sendable {
    /// Apple's string for the algorithm.
    public let rawValue: CFString
    /// The algorithm named `rawValue`.
    public init(rawValue: CFString) { self.rawValue = ConstantString(string: rawValue as String) }
    /// The algorithm named `rawValue`, as Apple's overlay also spells it.
    public init(_ rawValue: CFString) { self.init(rawValue: rawValue) }
    private init(named name: String) { rawValue = ConstantString(string: name) }

    /// Equal when the names are.
    public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool { lhs.rawValue as String == rhs.rawValue as String }
    /// Hashes the name.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }

    /// ECDSA over the SHA-256 of the message; the signature is DER (X9.62).
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(named: "algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA over the SHA-384 of the message; the signature is DER (X9.62).
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(named: "algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA over the SHA-512 of the message; the signature is DER (X9.62).
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(named: "algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA over a SHA-256 digest the caller computed (32 bytes); the signature is DER (X9.62).
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(named: "algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA over a SHA-384 digest the caller computed (48 bytes); the signature is DER (X9.62).
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(named: "algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA over a SHA-512 digest the caller computed (64 bytes); the signature is DER (X9.62).
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(named: "algid:sign:ECDSA:digest-X962:SHA512")

    /// How libcrypto runs a supported algorithm: the hash's name, and whether the data is
    /// the message (hashed here) or its digest. Nil for an algorithm not supported.
    var ecdsa: (digest: String, isMessage: Bool, digestLength: Int)? {
        switch self {
        case .ecdsaSignatureMessageX962SHA256: return ("SHA256", true, 32)
        case .ecdsaSignatureMessageX962SHA384: return ("SHA384", true, 48)
        case .ecdsaSignatureMessageX962SHA512: return ("SHA512", true, 64)
        case .ecdsaSignatureDigestX962SHA256: return ("SHA256", false, 32)
        case .ecdsaSignatureDigestX962SHA384: return ("SHA384", false, 48)
        case .ecdsaSignatureDigestX962SHA512: return ("SHA512", false, 64)
        default: return nil
        }
    }
}
