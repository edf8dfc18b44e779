import Foundation
import LinuxKeychain
import Testing

/// Bytes from hexadecimal text, for fixtures; nil for text that is not hex.
func bytes(hex: String) -> Data? {
    var data = Data()
    var high: UInt8?
    for character in hex {
        guard let nibble = character.hexDigitValue.map(UInt8.init) else { return nil }
        if let first = high {
            data.append(first << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return high == nil ? data : nil
}

/// What a SecKey function returned, or the OSStatus of the CFError it set.
struct SecKeyOutcome<Value> {
    let value: Value?
    let status: OSStatus?
    let message: String?
}

/// Calls a SecKey function and reads its error parameter, releasing the error as Apple code does.
func secKeyCall<Value>(_ body: (UnsafeMutablePointer<Unmanaged<CFError>?>) -> Value?) -> SecKeyOutcome<Value> {
    var error: Unmanaged<CFError>?
    let value = body(&error)
    let failure = error?.takeRetainedValue()
    return SecKeyOutcome(value: value, status: failure.map { OSStatus($0.code) }, message: failure?.localizedDescription)
}

/// A new key, or a recorded failure.
func randomECKey(bits: Int) throws -> SecKey {
    let outcome = secKeyCall {
        SecKeyCreateRandomKey([kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: bits] as CFDictionary, $0)
    }
    return try #require(outcome.value, "SecKeyCreateRandomKey(\(bits)) failed: \(outcome.message ?? "")")
}

/// The attributes `SecKeyCreateWithData` needs for an EC key of `keyClass`.
func ecAttributes(_ keyClass: CFString) -> CFDictionary {
    [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass: keyClass] as CFDictionary
}

/// The X9.63 bytes of `key`.
func externalRepresentation(_ key: SecKey) throws -> Data {
    let outcome = secKeyCall { SecKeyCopyExternalRepresentation(key, $0) }
    return try #require(outcome.value) as Data
}

/// `SecItemCopyMatching` of `query`: its status and result.
func copyMatching(_ query: [CFString: Any]) -> (status: OSStatus, result: AnyObject?) {
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, result)
}
