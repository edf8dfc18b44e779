import Foundation
import KeychainCore
import LinuxKeychain

/// A tiny program written as Apple code would be (SecItem calls, no access group named), for
/// the placement tests. It is built twice, as `KeychainProbeA` and `KeychainProbeB`, so that
/// two programs with two default identities (their executables' names) share one store.
///
///     add SERVICE ACCOUNT          stores standard input
///     get SERVICE ACCOUNT          prints the secret
///     group SERVICE ACCOUNT        prints the access group the item reports
///     delete-all                   SecItemDelete([kSecClass: kSecClassGenericPassword])
///     own-vault before|after       registers its own `vault` before or after the first keychain
///                                  call, then adds and reads an item through KEYCHAIN_BACKEND
///     make-key TAG                 SecKeyCreateRandomKey (P-256, kSecAttrIsPermanent) under TAG;
///                                  prints the public key (X9.63)
///     sign TAG                     finds the key by tag (kSecReturnRef) and prints its ES256
///                                  signature of standard input
///     delete-key TAG               SecItemDelete of the keys under TAG
///
/// Exit status: 0 success, 3 errSecItemNotFound, 1 anything else (with the status on stderr).
public enum PlacementProbe: Sendable {
    public static func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let status = run(arguments)
        if status != errSecSuccess {
            let detail = KeychainLastError.current.map { "\($0)" } ?? ""
            FileHandle.standardError.write(Data("OSStatus \(status) \(detail)\n".utf8))
        }
        exit(status == errSecSuccess ? 0 : status == errSecItemNotFound ? 3 : 1)
    }

    private static func run(_ arguments: [String]) -> OSStatus {
        switch (arguments.first, arguments.count) {
        case ("add", 3):
            let secret = FileHandle.standardInput.readDataToEndOfFile()
            return SecItemAdd(item(arguments[1], arguments[2], [kSecValueData: secret]) as CFDictionary, nil)
        case ("get", 3), ("group", 3):
            var result: CFTypeRef?
            let returning = arguments[0] == "get" ? kSecReturnData : kSecReturnAttributes
            let status = SecItemCopyMatching(item(arguments[1], arguments[2], [returning: true]) as CFDictionary, &result)
            guard status == errSecSuccess else { return status }
            if let data = result as? Data {
                FileHandle.standardOutput.write(data)
            } else if let attributes = result as? [String: Any] {
                let group = attributes[kSecAttrAccessGroup as String] as? String ?? "(none)"
                FileHandle.standardOutput.write(Data(group.utf8))
            }
            return status
        case ("delete-all", 1):
            return SecItemDelete([kSecClass: kSecClassGenericPassword] as CFDictionary)
        case ("own-vault", 2):
            return ownVault(registeringFirst: arguments[1] == "before")
        case ("make-key", 2):
            return makeKey(tag: Data(arguments[1].utf8))
        case ("sign", 2):
            return sign(tag: Data(arguments[1].utf8), FileHandle.standardInput.readDataToEndOfFile())
        case ("delete-key", 2):
            return SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: Data(arguments[1].utf8)] as CFDictionary)
        default:
            FileHandle.standardError.write(Data("usage: see PlacementProbe.swift\n".utf8))
            return errSecParam
        }
    }

    // Written as Apple's "Generating New Cryptographic Keys" and "Storing Keys in the Keychain" do.
    private static func makeKey(tag: Data) -> OSStatus {
        let attributes: [CFString: Any] = [
            kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
            kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: tag] as [CFString: Any],
        ]
        var error: Unmanaged<CFError>?
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            return OSStatus(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? Int(errSecInternalError))
        }
        guard let publicKey = SecKeyCopyPublicKey(privateKey),
              let data = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else { return errSecInternalError }
        FileHandle.standardOutput.write(data)
        return errSecSuccess
    }

    private static func sign(tag: Data, _ message: Data) -> OSStatus {
        let query: [CFString: Any] = [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag,
                                      kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecReturnRef: true]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess else { return status }
        let key = item as! SecKey
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data? else {
            return errSecInternalError
        }
        FileHandle.standardOutput.write(signature)
        return errSecSuccess
    }

    private static func item(_ service: String, _ account: String, _ extra: [CFString: Any]) -> [CFString: Any] {
        var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account]
        query.merge(extra) { _, new in new }
        return query
    }

    /// A program's own backend named `vault`: it must be the one used, whether registered before
    /// the built-ins are (at the first keychain call) or after.
    private static func ownVault(registeringFirst: Bool) -> OSStatus {
        let register = { KeychainBackendRegistry.shared.register("vault") { MemoryBackend() } }
        if registeringFirst {
            register()
        } else {
            // The first keychain call registers the built-ins (and, with no Vault configured,
            // fails to select the built-in vault).
            _ = SecItemCopyMatching(item("own-vault", "probe", [:]) as CFDictionary, nil)
            register()
        }
        let added = SecItemAdd(item("own-vault", "probe", [kSecValueData: Data("mine".utf8)]) as CFDictionary, nil)
        guard added == errSecSuccess else { return added }
        var result: CFTypeRef?
        let found = SecItemCopyMatching(item("own-vault", "probe", [kSecReturnData: true]) as CFDictionary, &result)
        guard found == errSecSuccess else { return found }
        return (result as? Data) == Data("mine".utf8) ? errSecSuccess : errSecDecode
    }
}
