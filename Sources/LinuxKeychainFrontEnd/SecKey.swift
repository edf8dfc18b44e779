import Foundation
import KeychainCore

/// A NIST prime curve that SecKey supports, by its size in bits (Apple's `kSecAttrKeySizeInBits`).
enum ECCurve: Int, Sendable {
    case p256 = 256
    case p384 = 384
    case p521 = 521

    /// The bytes of one coordinate, and of the private scalar.
    var fieldBytes: Int { (rawValue + 7) / 8 }
    /// ANSI X9.63 public key: 04 || X || Y.
    var publicLength: Int { 1 + 2 * fieldBytes }
    /// Apple's private key representation: 04 || X || Y || K.
    var privateLength: Int { 1 + 3 * fieldBytes }

    /// The curve whose representation of a key of that class has `length` bytes. Both classes
    /// are needed: a P-256 private key is as long as a P-384 public one.
    static func of(representationLength length: Int, isPrivate: Bool) -> ECCurve? {
        [ECCurve.p256, .p384, .p521].first { (isPrivate ? $0.privateLength : $0.publicLength) == length }
    }
}

/// What a `SecKey` is: an EC key on a curve, or an RSA key of a modulus size.
enum SecKeyKind: Hashable, Sendable {
    case ec(ECCurve)
    case rsa(bits: Int)

    /// The RSA modulus sizes supported, in bits.
    static let rsaSizes = 2048...4096

    /// `kSecAttrKeySizeInBits`.
    var bits: Int {
        switch self {
        case .ec(let curve): return curve.rawValue
        case .rsa(let bits): return bits
        }
    }
}

/// Apple's key object: here an EC key on P-256, P-384 or P-521, or an RSA key of 2048 to 4096
/// bits, public or private.
///
/// Immutable. It holds the key as Apple's external representation (ANSI X9.63 for EC: 04 || X
/// || Y, then || K for a private key; PKCS #1 DER for RSA), in memory that is zeroed when the
/// key is released. Its description and hash never involve the private bytes.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    let kind: SecKeyKind
    let isPrivate: Bool
    /// The external representation; secret when `isPrivate`.
    let representation: SecretBytes
    /// The external representation of the public key (of the pair, for a private key).
    let publicRepresentation: Data

    init(_ kind: SecKeyKind, isPrivate: Bool, representation: SecretBytes, publicRepresentation: Data) {
        self.kind = kind
        self.isPrivate = isPrivate
        self.representation = representation
        self.publicRepresentation = publicRepresentation
    }

    /// An EC key, whose public representation is the start of its own: 04 || X || Y.
    convenience init(curve: ECCurve, isPrivate: Bool, representation: SecretBytes) {
        let point = representation.withUnsafeBytes { Data($0[0..<curve.publicLength]) }
        self.init(.ec(curve), isPrivate: isPrivate, representation: representation, publicRepresentation: point)
    }

    /// Equal when both are the same key of the same class; compared in time that does not
    /// depend on where the bytes differ.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.kind == rhs.kind && lhs.isPrivate == rhs.isPrivate && lhs.representation.constantTimeEquals(rhs.representation)
    }

    /// Hashes the kind, the class and the public key only.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(isPrivate)
        hasher.combine(publicRepresentation)
    }

    /// The kind, size and class, for logs; never the key's bytes.
    public var description: String {
        let name = switch kind {
        case .ec(let curve): "EC P-\(curve.rawValue)"
        case .rsa(let bits): "RSA \(bits)-bit"
        }
        return "SecKey(\(name) \(isPrivate ? "private" : "public") key)"
    }
}

/// Apple's name for a SecKey reference.
public typealias SecKeyRef = SecKey

/// The type identifier Core Foundation would give `SecKey`; a constant here.
public func SecKeyGetTypeID() -> CFTypeID { 0x5365_634B }

/// What a key is asked to do, with Apple's raw values (SecKey.h).
public enum SecKeyOperationType: Int, Sendable {
    /// Making a signature (a private key).
    case sign = 0
    /// Checking a signature (a public key).
    case verify = 1
    /// Encrypting; no EC algorithm here supports it yet.
    case encrypt = 2
    /// Decrypting; no EC algorithm here supports it yet.
    case decrypt = 3
    /// Key agreement; not supported yet.
    case keyExchange = 4
}
