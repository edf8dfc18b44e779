import Foundation

/// Reads one value of an Apple query dictionary as the type a key needs.
///
/// Values arrive in either form Foundation gives on Linux: Swift natives (`String`, `Data`,
/// `Bool`, `Date`, integers) or their Foundation classes (`NSString`, `NSData`, `NSNumber`,
/// `NSDate`). Every reader returns nil for anything else and never traps, whatever the value.
enum SecItemValue {
    static func text(_ value: Any) -> String? {
        value as? String
    }

    static func data(_ value: Any) -> Data? {
        value as? Data
    }

    static func date(_ value: Any) -> Date? {
        value as? Date
    }

    /// A `CFBoolean`, `Bool` or number (non-zero is true), as Core Foundation reads flags.
    static func flag(_ value: Any) -> Bool? {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        return nil
    }

    /// A whole number in `Int64` range. A Swift `Bool` is not one; an `NSNumber` holding a
    /// fraction or an out-of-range value is not one either.
    static func integer(_ value: Any) -> Int64? {
        if type(of: value) == Bool.self { return nil }
        if let integer = value as? any BinaryInteger { return Int64(exactly: integer) }
        guard let number = value as? NSNumber else { return nil }
        let real = number.doubleValue
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        guard real.isFinite, real.rounded(.towardZero) == real,
              real >= -9_223_372_036_854_775_808.0, real < 9_223_372_036_854_775_808.0 else { return nil }
        return number.int64Value
    }

    /// The value as `key` stores it, or `errSecParam` naming the key and the expected type.
    static func attribute(_ value: Any, for key: AttributeKey) throws -> AttributeValue {
        let parsed: AttributeValue?
        switch key.valueKind {
        case .string: parsed = text(value).map(AttributeValue.string)
        case .data: parsed = data(value).map(AttributeValue.data)
        case .integer: parsed = integer(value).map(AttributeValue.integer)
        case .bool: parsed = flag(value).map(AttributeValue.bool)
        case .date: parsed = date(value).map(AttributeValue.date)
        }
        guard let parsed else {
            throw KeychainError.badParameter(
                "The value for \(key.appleConstantName) must be \(key.valueKind.typeDescription), not \(typeName(of: value)).")
        }
        return parsed
    }

    /// The dynamic type of `value` for messages; never its contents, which may be secret.
    static func typeName(of value: Any) -> String {
        String(describing: type(of: value))
    }
}

extension AttributeValue.Kind {
    /// What a caller must pass, in Apple's terms.
    var typeDescription: String {
        switch self {
        case .string: return "a String (CFString)"
        case .data: return "Data (CFData)"
        case .integer: return "a whole number (CFNumber)"
        case .bool: return "a Bool (CFBoolean)"
        case .date: return "a Date (CFDate)"
        }
    }
}

extension AttributeKey {
    /// The name of the Apple constant for this attribute, for messages.
    var appleConstantName: String {
        switch self {
        case .accessGroup: return "kSecAttrAccessGroup"
        case .service: return "kSecAttrService"
        case .account: return "kSecAttrAccount"
        case .server: return "kSecAttrServer"
        case .protocol: return "kSecAttrProtocol"
        case .port: return "kSecAttrPort"
        case .path: return "kSecAttrPath"
        case .authenticationType: return "kSecAttrAuthenticationType"
        case .securityDomain: return "kSecAttrSecurityDomain"
        case .label: return "kSecAttrLabel"
        case .itemDescription: return "kSecAttrDescription"
        case .comment: return "kSecAttrComment"
        case .generic: return "kSecAttrGeneric"
        case .creator: return "kSecAttrCreator"
        case .type: return "kSecAttrType"
        case .accessible: return "kSecAttrAccessible"
        case .synchronizable: return "kSecAttrSynchronizable"
        case .isInvisible: return "kSecAttrIsInvisible"
        case .isNegative: return "kSecAttrIsNegative"
        case .creationDate: return "kSecAttrCreationDate"
        case .modificationDate: return "kSecAttrModificationDate"
        }
    }
}
