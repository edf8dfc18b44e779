public import Foundation

/// Apple's algorithm names for the SecKey functions, with Apple's string values (SecKey.h).
/// Only the signature, RSA encryption, ECIES and ECDH ones below are supported; any other is answered `errSecUnimplemented`.
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

    /// RSA PKCS #1 v1.5 over the SHA-256 of the message.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// RSA PKCS #1 v1.5 over the SHA-384 of the message.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PKCS1v15:SHA384")
    /// RSA PKCS #1 v1.5 over the SHA-512 of the message.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PKCS1v15:SHA512")
    /// RSA PSS over the SHA-256 of the message: MGF1 with SHA-256, a salt as long as the digest.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PSS:SHA256")
    /// RSA PSS over the SHA-384 of the message: MGF1 with SHA-384, a salt as long as the digest.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PSS:SHA384")
    /// RSA PSS over the SHA-512 of the message: MGF1 with SHA-512, a salt as long as the digest.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(named: "algid:sign:RSA:message-PSS:SHA512")

    /// RSA encryption with PKCS #1 v1.5 padding.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm(named: "algid:encrypt:RSA:PKCS1")
    /// RSA OAEP with SHA-1 (and MGF1 with SHA-1), no label.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm(named: "algid:encrypt:RSA:OAEP:SHA1")
    /// RSA OAEP with SHA-256 (and MGF1 with SHA-256), no label.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(named: "algid:encrypt:RSA:OAEP:SHA256")
    /// RSA OAEP with SHA-384 (and MGF1 with SHA-384), no label.
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm(named: "algid:encrypt:RSA:OAEP:SHA384")
    /// RSA OAEP with SHA-512 (and MGF1 with SHA-512), no label.
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm(named: "algid:encrypt:RSA:OAEP:SHA512")

    /// ECDH: the shared secret, the x-coordinate of the shared point.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(named: "algid:keyexchange:ECDH")
    /// ECDH through the ANSI X9.63 KDF with SHA-1 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(named: "algid:keyexchange:ECDH:KDFX963:SHA1")
    /// ECDH through the ANSI X9.63 KDF with SHA-224 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm(named: "algid:keyexchange:ECDH:KDFX963:SHA224")
    /// ECDH through the ANSI X9.63 KDF with SHA-256 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(named: "algid:keyexchange:ECDH:KDFX963:SHA256")
    /// ECDH through the ANSI X9.63 KDF with SHA-384 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(named: "algid:keyexchange:ECDH:KDFX963:SHA384")
    /// ECDH through the ANSI X9.63 KDF with SHA-512 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(named: "algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Cofactor ECDH (the same on NIST curves, whose cofactor is 1): the shared secret, the x-coordinate of the shared point.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC")
    /// ECDHC through the ANSI X9.63 KDF with SHA-1 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// ECDHC through the ANSI X9.63 KDF with SHA-224 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// ECDHC through the ANSI X9.63 KDF with SHA-256 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// ECDHC through the ANSI X9.63 KDF with SHA-384 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// ECDHC through the ANSI X9.63 KDF with SHA-512 (`SecKeyKeyExchangeParameter.requestedSize` bytes).
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(named: "algid:keyexchange:ECDHC:KDFX963:SHA512")

    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-1, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-224, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-256, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-384, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-512, AES-GCM with a zero IV.
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-1, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionStandardVariableIVX963SHA1AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-224, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-256, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-384, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDH through the X9.63 KDF with SHA-512, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-1, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-224, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-256, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-384, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-512, AES-GCM with a zero IV.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-1, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionCofactorVariableIVX963SHA1AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-224, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-256, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-384, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES: an ephemeral key, ECDHC through the X9.63 KDF with SHA-512, AES-GCM with the IV from the KDF too.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(named: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")

    /// How a supported ECIES algorithm runs: the KDF's hash, and whether the IV comes from the
    /// KDF (else it is zero); nil for any other algorithm.
    var ecies: (digest: String, variableIV: Bool)? {
        let parts = (rawValue as String).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 7, parts[0] == "algid", parts[1] == "encrypt", parts[2] == "ECIES",
              parts[3] == "ECDH" || parts[3] == "ECDHC", parts[4] == "KDFX963",
              ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"].contains(parts[5]),
              parts[6] == "AESGCM" || parts[6] == "AESGCM-KDFIV" else { return nil }
        return (parts[5], parts[6] == "AESGCM-KDFIV")
    }

    /// How libcrypto runs a supported key exchange: nil for another algorithm, else the X9.63
    /// KDF's hash (nil for the shared secret itself).
    var keyExchange: String?? {
        let name = rawValue as String
        guard name == "algid:keyexchange:ECDH" || name == "algid:keyexchange:ECDHC" else {
            for prefix in ["algid:keyexchange:ECDH:KDFX963:", "algid:keyexchange:ECDHC:KDFX963:"] where name.hasPrefix(prefix) {
                let digest = String(name.dropFirst(prefix.count))
                return ["SHA1", "SHA224", "SHA256", "SHA384", "SHA512"].contains(digest) ? .some(digest) : nil
            }
            return nil
        }
        return .some(nil)
    }

    /// How libcrypto runs a supported RSA encryption algorithm: OAEP's hash (nil for PKCS #1
    /// v1.5) and the bytes the padding takes from the modulus; nil for any other algorithm.
    var encryption: (oaepDigest: String?, overhead: Int)? {
        switch self {
        case .rsaEncryptionPKCS1: return (nil, 11)
        case .rsaEncryptionOAEPSHA1: return ("SHA1", 2 * 20 + 2)
        case .rsaEncryptionOAEPSHA256: return ("SHA256", 2 * 32 + 2)
        case .rsaEncryptionOAEPSHA384: return ("SHA384", 2 * 48 + 2)
        case .rsaEncryptionOAEPSHA512: return ("SHA512", 2 * 64 + 2)
        default: return nil
        }
    }

    /// How libcrypto runs a supported signature algorithm; nil for any other.
    var signature: SignatureScheme? {
        switch self {
        case .ecdsaSignatureMessageX962SHA256: return SignatureScheme(.ecdsa, "SHA256", isMessage: true)
        case .ecdsaSignatureMessageX962SHA384: return SignatureScheme(.ecdsa, "SHA384", isMessage: true)
        case .ecdsaSignatureMessageX962SHA512: return SignatureScheme(.ecdsa, "SHA512", isMessage: true)
        case .ecdsaSignatureDigestX962SHA256: return SignatureScheme(.ecdsa, "SHA256", isMessage: false)
        case .ecdsaSignatureDigestX962SHA384: return SignatureScheme(.ecdsa, "SHA384", isMessage: false)
        case .ecdsaSignatureDigestX962SHA512: return SignatureScheme(.ecdsa, "SHA512", isMessage: false)
        case .rsaSignatureMessagePKCS1v15SHA256: return SignatureScheme(.rsaPKCS1v15, "SHA256", isMessage: true)
        case .rsaSignatureMessagePKCS1v15SHA384: return SignatureScheme(.rsaPKCS1v15, "SHA384", isMessage: true)
        case .rsaSignatureMessagePKCS1v15SHA512: return SignatureScheme(.rsaPKCS1v15, "SHA512", isMessage: true)
        case .rsaSignatureMessagePSSSHA256: return SignatureScheme(.rsaPSS, "SHA256", isMessage: true)
        case .rsaSignatureMessagePSSSHA384: return SignatureScheme(.rsaPSS, "SHA384", isMessage: true)
        case .rsaSignatureMessagePSSSHA512: return SignatureScheme(.rsaPSS, "SHA512", isMessage: true)
        default: return nil
        }
    }
}

/// A signature algorithm as libcrypto runs it.
struct SignatureScheme {
    enum Family { case ecdsa, rsaPKCS1v15, rsaPSS }

    let family: Family
    /// The hash's name for libcrypto.
    let digest: String
    /// Whether the data is the message (hashed by libcrypto) or its digest.
    let isMessage: Bool

    init(_ family: Family, _ digest: String, isMessage: Bool) {
        self.family = family
        self.digest = digest
        self.isMessage = isMessage
    }

    /// The digest's length in bytes.
    var digestLength: Int { digest == "SHA256" ? 32 : digest == "SHA384" ? 48 : 64 }

    /// Whether keys of `kind` use this algorithm.
    func fits(_ kind: SecKeyKind) -> Bool {
        if case .ec = kind { return family == .ecdsa }
        return family != .ecdsa
    }
}
