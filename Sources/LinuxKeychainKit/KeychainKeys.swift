public import Foundation
public import KeychainCore
public import LinuxKeychain

/// The private keys a program keeps by name, for the common cases: a JWT or request signer
/// (ES256 on P-256, RS256 on RSA) or a mutual-TLS client key.
///
///     let keys = KeychainKeys()
///     let signer = try keys.key(tag: "com.example.jwt") ?? keys.makeKey(.p256, tag: "com.example.jwt")
///     let signature = SecKeyCreateSignature(signer, .ecdsaSignatureMessageX962SHA256, token as CFData, nil)
///
/// Each key is a `kSecClassKey` item with the tag as `kSecAttrApplicationTag`, as Apple code
/// stores it, so the SecItem functions and `linux-keychain list` see the same keys. One tag
/// names one private key here. Errors are `KeychainError`s; the key's bytes are never in one.
public struct KeychainKeys: Sendable {
    /// The kinds of key `makeKey(_:tag:)` makes.
    public enum Kind: Sendable, Equatable {
        case p256, p384, p521
        /// RSA of 2048 to 4096 bits, in whole bytes.
        case rsa(bits: Int)
    }

    /// The access group keys are stored in and looked up in; nil for the program's default.
    public let accessGroup: String?
    private let backend: (any KeychainBackend)?

    /// Keys in `accessGroup` (nil: the program's own) on `backend` (nil: the process-wide choice).
    public init(accessGroup: String? = nil, backend: (any KeychainBackend)? = nil) {
        self.accessGroup = accessGroup
        self.backend = backend
    }

    /// Makes a new private key of `kind` and stores it under `tag`; `errSecDuplicateItem`
    /// when a key is stored under `tag` already (nothing is then stored).
    public func makeKey(_ kind: Kind, tag: String) throws -> SecKey {
        guard try key(tag: tag) == nil else {
            throw KeychainError.duplicate("A private key is stored under tag '\(tag)' already; remove it first or use key(tag:).")
        }
        let (type, bits): (CFString, Int) = switch kind {
        case .p256: (kSecAttrKeyTypeECSECPrimeRandom, 256)
        case .p384: (kSecAttrKeyTypeECSECPrimeRandom, 384)
        case .p521: (kSecAttrKeyTypeECSECPrimeRandom, 521)
        case .rsa(let bits): (kSecAttrKeyTypeRSA, bits)
        }
        var parameters = storage(tag: tag)
        parameters[kSecAttrKeyType as String] = type
        parameters[kSecAttrKeySizeInBits as String] = bits
        parameters[kSecAttrIsPermanent as String] = true
        return try calling {
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
                let failure = error?.takeRetainedValue()
                throw KeychainError(failure.map(Self.status(of:)) ?? errSecInternalError,
                                    failure?.localizedDescription ?? "The key could not be made.")
            }
            return key
        }
    }

    /// The private key stored under `tag`, or nil when there is none.
    public func key(tag: String) throws -> SecKey? {
        var query = storage(tag: tag)
        query[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate
        query[kSecReturnRef as String] = true
        return try calling {
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            try Self.check(status)
            return result as? SecKey
        }
    }

    /// Stores `key`, a private key, under `tag`, replacing the one stored there; a public key
    /// is `errSecParam`, storing nothing.
    public func set(_ key: SecKey, tag: String) throws {
        let keyClass = (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrKeyClass as String] as? String
        guard keyClass == kSecAttrKeyClassPrivate as String else {
            throw KeychainError.badParameter("KeychainKeys stores private keys; a public key can be made again from its private key.")
        }
        try remove(tag: tag)
        var attributes = storage(tag: tag)
        attributes[kSecValueRef as String] = key
        try calling { try Self.check(SecItemAdd(attributes as CFDictionary, nil)) }
    }

    /// Removes the keys stored under `tag`; whether there were any.
    @discardableResult
    public func remove(tag: String) throws -> Bool {
        try calling {
            let status = SecItemDelete(storage(tag: tag) as CFDictionary)
            if status == errSecItemNotFound { return false }
            try Self.check(status)
            return true
        }
    }

    // MARK: Plumbing

    private func storage(tag: String) -> [String: Any] {
        var attributes: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8)]
        if let accessGroup { attributes[kSecAttrAccessGroup as String] = accessGroup }
        return attributes
    }

    private func calling<Result>(_ body: () throws -> Result) throws -> Result {
        guard let backend else { return try body() }
        return try KeychainBackendRegistry.withBackend(backend, body)
    }

    private static func check(_ status: OSStatus) throws {
        guard status != errSecSuccess else { return }
        throw KeychainLastError.current.flatMap { $0.status == status ? $0 : nil } ?? KeychainError(status, keychainStatusMessage(status))
    }

    private static func status(of error: CFError) -> OSStatus {
        OSStatus(truncatingIfNeeded: CFErrorGetCode(error))
    }
}
