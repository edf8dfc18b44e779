public import Foundation
import KeychainCore
import KeychainEntryPoints

/// Apple's identity: a certificate and the private key of its public key. On Linux, as on
/// Apple platforms, it is not stored as such: `kSecClassIdentity` finds each stored
/// certificate whose `kSecAttrPublicKeyHash` is a stored private key's `kSecAttrApplicationLabel`.
///
/// Immutable. Equal when both parts are; its description never shows the key's bytes.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    let certificate: SecCertificate
    let privateKey: SecKey

    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate only.
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    public var description: String { "SecIdentity(\(certificate), \(privateKey))" }
}

/// Apple's name for a SecIdentity reference.
public typealias SecIdentityRef = SecIdentity

/// The type identifier Core Foundation would give `SecIdentity`; a constant here.
public func SecIdentityGetTypeID() -> CFTypeID { 0x5365_6349 }

/// The identity's certificate, as on Apple platforms.
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key, as on Apple platforms.
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// The identity of `certificateRef` with its private key from the keychain, as on macOS:
/// `errSecItemNotFound` when no stored private key belongs to the certificate's public key.
/// `keychainOrArray` is ignored: there is one keychain.
public func SecIdentityCreateWithCertificate(_ keychainOrArray: CFTypeRef?, _ certificateRef: SecCertificate,
                                             _ identityRef: UnsafeMutablePointer<SecIdentity?>) -> OSStatus {
    identityRef.pointee = nil
    do {
        guard let key = try SecIdentitySearch.privateKey(of: certificateRef, in: try KeychainOperations.current()) else {
            throw KeychainError.notFound("No stored private key belongs to the certificate's public key.")
        }
        identityRef.pointee = SecIdentity(certificate: certificateRef, privateKey: key)
        return errSecSuccess
    } catch let error as KeychainError {
        KeychainLastError.record(error)
        return error.status
    } catch {
        return errSecInternalComponent
    }
}
