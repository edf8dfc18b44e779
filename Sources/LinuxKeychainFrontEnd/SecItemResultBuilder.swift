import Foundation
import KeychainCore

/// Builds what the SecItem functions hand back through their `result` pointer, in the shape
/// Apple documents: one return key with `kSecMatchLimitOne` gives that object alone; several
/// give a dictionary of the attributes plus `kSecValueData`/`kSecValueRef`/`kSecValuePersistentRef`;
/// any other limit an array of those, even for one item; no return key nothing. Objects are
/// Foundation classes, as Core Foundation returns them, so `as? Data` and `as? [String: Any]`
/// work. Secrets are copied out only when `kSecReturnData` asked. See docs/apple-api.md.
enum SecItemResultBuilder {
    static func result(for items: [KeychainItem], returns: SecItemReturns, limit: MatchLimit) throws -> CFTypeRef? {
        guard !returns.isEmpty else { return nil }
        let each = try items.map { try result(for: $0, returns: returns) }
        if limit == .one { return each.first }
        return NSArray(array: each)
    }

    private static func result(for item: KeychainItem, returns: SecItemReturns) throws -> AnyObject {
        if returns.count == 1 {
            if returns.data { return try secret(of: item) }
            if returns.attributes { return attributes(of: item) }
            if returns.reference { return try reference(to: item) }
            return persistentReference(of: item)
        }
        let dictionary = returns.attributes ? attributes(of: item) : NSMutableDictionary()
        if returns.data { dictionary[kSecValueData] = try secret(of: item) }
        if returns.reference { dictionary[kSecValueRef] = try reference(to: item) }
        if returns.persistentReference { dictionary[kSecValuePersistentRef] = persistentReference(of: item) }
        return dictionary
    }

    /// The item's attributes as Apple returns them: the class, every primary-key attribute
    /// (an unset one as its empty default, which Apple also reports), an accessibility class,
    /// and every other attribute the item has.
    static func attributes(of item: KeychainItem) -> NSMutableDictionary {
        var attributes = item.primaryKey.attributes.merging(item.attributes)
        if attributes[.accessible] == nil {
            // Items written by the typed API or the CLI carry none; Apple's default applies.
            attributes[.accessible] = .string(kSecAttrAccessibleWhenUnlocked as String)
        }
        let givenAsOtherType = attributes.keysGivenAsOtherType
        attributes[.valueTypes] = nil
        let dictionary = NSMutableDictionary()
        dictionary[kSecClass] = NSString(string: item.itemClass.rawValue)
        for (key, value) in attributes {
            let returned = givenAsOtherType.contains(key) ? value.asOtherType : value
            dictionary[NSString(string: key.rawValue)] = foundationObject(returned)
        }
        return dictionary
    }

    private static func foundationObject(_ value: AttributeValue) -> AnyObject {
        // `.string` and `.data` values come back as NSString and NSData, whichever kind the
        // attribute is stored as: `attributes(of:)` has already turned each value into the
        // type the caller gave.
        switch value {
        case .string(let text): return NSString(string: text)
        case .data(let data): return NSData(data: data)
        case .integer(let number): return NSNumber(value: number)
        case .bool(let flag): return NSNumber(value: flag)
        case .date(let date): return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        }
    }

    /// A key's `SecKey`, a certificate's `SecCertificate`; for a password, a reference made
    /// from the primary key.
    private static func reference(to item: KeychainItem) throws -> AnyObject {
        switch item.itemClass {
        case .genericPassword, .internetPassword: return SecKeychainItem(item.primaryKey)
        case .key: return try SecKeyStorage.reference(to: item)
        case .certificate: return try SecCertificateStorage.reference(to: item)
        }
    }

    /// A copy of the secret for the caller, who owns it from here on.
    private static func secret(of item: KeychainItem) throws -> NSData {
        guard let secret = item.secret else {
            throw KeychainError(errSecDataNotAvailable, "The backend returned the item with \(item.primaryKey.readableName) without its secret.")
        }
        // Straight into the NSData the caller receives: an intermediate Data would be one
        // more allocation and one more copy of the secret to zero.
        return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }

    private static func persistentReference(of item: KeychainItem) -> NSData {
        NSData(data: item.primaryKey.encoded)
    }
}

extension AttributeValue {
    /// A string attribute's value as the Data it was given as, or a data attribute's as the
    /// String (`ValueTypes`).
    fileprivate var asOtherType: AttributeValue {
        switch self {
        case .string(let text): return .data(ValueTypes.data(ofStoredText: text))
        case .data(let data): return .string(String(decoding: data, as: UTF8.self))
        default: return self
        }
    }
}
