public import Foundation
import CLibcrypto
import KeychainCore

/// Apple's certificate object: one X.509 certificate, kept as its DER bytes and read through
/// libcrypto (loaded at first use), as on Apple platforms.
///
/// Immutable. Equal when the DER bytes are; its description names the subject summary only.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The certificate's DER encoding, as given.
    let der: Data
    /// What `SecCertificateCopySubjectSummary` returns; nil when the subject names none.
    let subjectSummary: String?
    /// The public key, when it is one SecKey supports (EC P-256/384/521, RSA 2048–4096).
    let publicKey: SecKey?
    /// The fields stored as attributes.
    let fields: CertificateFields

    private init(der: Data, subjectSummary: String?, publicKey: SecKey?, fields: CertificateFields) {
        self.der = der
        self.subjectSummary = subjectSummary
        self.publicKey = publicKey
        self.fields = fields
    }

    /// The certificate in `der`, or nil when it is not exactly one DER certificate (or
    /// libcrypto cannot be loaded).
    static func parse(_ der: Data) -> SecCertificate? {
        guard (try? Libcrypto.load()) != nil else { return nil }
        var summary = [CChar](repeating: 0, count: 1024)
        var key = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_RSA_KEY_CAPACITY))
        var keyLength = key.count
        var kind: Int32 = 0, bits: Int32 = 0
        let parsed = der.withUnsafeBytes { bytes in
            clibcrypto_certificate_parse(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &summary, summary.count,
                                         &key, &keyLength, &kind, &bits)
        }
        guard parsed == 0, let fields = CertificateFields(der: der) else { return nil }
        let text = String(decoding: summary.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SecCertificate(der: der, subjectSummary: text.isEmpty ? nil : text,
                              publicKey: Self.key(kind: kind, bits: Int(bits), Data(key[0..<keyLength])), fields: fields)
    }

    /// A public SecKey for the key libcrypto found, when SecKey supports it.
    private static func key(kind: Int32, bits: Int, _ bytes: Data) -> SecKey? {
        switch kind {
        case Int32(CLIBCRYPTO_CERTIFICATE_KEY_EC):
            guard let curve = ECCurve(rawValue: bits) else { return nil }
            return SecKey(curve: curve, isPrivate: false, representation: SecretBytes(bytes))
        case Int32(CLIBCRYPTO_CERTIFICATE_KEY_RSA):
            guard SecKeyKind.rsaSizes.contains(bits) else { return nil }
            return SecKey(.rsa(bits: bits), isPrivate: false, representation: SecretBytes(bytes), publicRepresentation: bytes)
        default:
            return nil
        }
    }

    /// Equal when the DER bytes are.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }
    /// Hashes the DER bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// The subject summary, for logs.
    public var description: String { "SecCertificate(\(subjectSummary ?? "no subject summary"))" }
}

/// Apple's name for a SecCertificate reference.
public typealias SecCertificateRef = SecCertificate

/// The type identifier Core Foundation would give `SecCertificate`; a constant here.
public func SecCertificateGetTypeID() -> CFTypeID { 0x5365_6343 }

/// The certificate whose DER encoding is `data`, as on Apple platforms; nil when `data` is not
/// exactly one DER X.509 certificate. `allocator` is ignored.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate.parse(data as Data)
}

/// The certificate's DER encoding.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: certificate.der)
}

/// A human-readable summary of the subject, as on Apple platforms: its common name, else its
/// email address, else its organizational unit, else its organization; nil when it has none.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { ConstantString(string: $0) }
}

/// The certificate's public key, as on Apple platforms; nil for a key SecKey does not support
/// (other curves, Ed25519, RSA outside 2048–4096 bits).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.publicKey
}
