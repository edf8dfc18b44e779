import Foundation
import KeychainCore

/// How a `SecCertificate` is kept as a `kSecClassCertificate` item, and made again from one.
///
/// The item's secret is the DER; its attributes are those Apple derives from it:
/// `kSecAttrCertificateType` (the X.509 version, 3 for v3), `kSecAttrCertificateEncoding` (3,
/// DER), `kSecAttrIssuer`, `kSecAttrSerialNumber`, `kSecAttrSubject` (`CertificateFields`),
/// `kSecAttrPublicKeyHash` (the SHA-1 of the public key's external representation, for a key
/// SecKey supports) and, unless the caller gives one, `kSecAttrLabel`, the subject summary.
enum SecCertificateStorage {
    static let derEncoding: Int64 = 3

    /// The attributes a stored `certificate` carries whatever the caller gave.
    static func derivedAttributes(of certificate: SecCertificate) throws -> [AttributeKey: AttributeValue] {
        var attributes = identifyingAttributes(of: certificate)
        attributes[.certificateEncoding] = .integer(derEncoding)
        attributes[.subject] = .data(certificate.fields.subject)
        if let key = certificate.publicKey { attributes[.publicKeyHash] = try SecKeyStorage.defaultApplicationLabel(of: key) }
        return attributes
    }

    /// The primary-key attributes that find the stored item of `certificate` (`kSecValueRef`).
    static func identifyingAttributes(of certificate: SecCertificate) -> [AttributeKey: AttributeValue] {
        [.certificateType: .integer(certificate.fields.version), .issuer: .data(certificate.fields.issuer),
         .serialNumber: .data(certificate.fields.serialNumber)]
    }

    /// The certificate that `der` holds; `errSecParam` when it is not exactly one DER certificate.
    static func certificate(_ der: Data) throws -> SecCertificate {
        guard let certificate = SecCertificate.parse(der) else {
            throw KeychainError.badParameter("The data is not one DER X.509 certificate.")
        }
        return certificate
    }

    /// The `SecCertificate` a stored certificate item holds, for `kSecReturnRef`.
    static func reference(to item: KeychainItem) throws -> SecCertificate {
        guard let secret = item.secret else {
            throw KeychainError(errSecDataNotAvailable, "The backend returned the \(item.primaryKey.readableName) without its data.")
        }
        guard let certificate = SecCertificate.parse(secret.makeData()) else {
            throw KeychainError(errSecDecode, "The stored \(item.primaryKey.readableName) is no DER certificate.")
        }
        return certificate
    }
}
