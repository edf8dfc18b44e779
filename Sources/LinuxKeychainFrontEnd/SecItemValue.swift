import Foundation
import KeychainCore

/// One value of an Apple query dictionary, read as the type a key needs.
///
/// Values arrive in either form Foundation gives on Linux: Swift natives (`String`, `Data`,
/// `Bool`, `Date`, integers) or their Foundation classes (`NSString`, `NSData`, `NSNumber`,
/// `NSDate`). Every reader returns nil for anything else and never traps, whatever the value.
///
/// `SecItemDictionary` sorts the kinds a query is mostly made of into their own cases as it
/// reads the dictionary, by class. Reading those costs a switch; reading `other` costs Swift's
/// casts from `Any`, each a call into the runtime that costs more than a memory-backend lookup.
/// Both give the same answer for the same value.
enum SecItemValue {
    /// A `String`.
    case text(String)
    /// A `Data`.
    case data(Data)
    /// A `Bool`, as Foundation hands out `kCFBooleanTrue` and `kCFBooleanFalse`.
    case flag(Bool)
    /// An `NSNumber` that is not one of the two `CFBoolean`s.
    case number(NSNumber)
    /// Anything else, read with Swift's casts.
    case other(Any)

    var text: String? {
        switch self {
        case .text(let text): return text
        case .other(let value): return value as? String
        case .data, .flag, .number: return nil
        }
    }

    var data: Data? {
        switch self {
        case .data(let data): return data
        case .other(let value): return value as? Data
        case .text, .flag, .number: return nil
        }
    }

    var date: Date? {
        if case .other(let value) = self { return value as? Date }
        return nil
    }

    /// A `CFBoolean`, `Bool` or number (non-zero is true), as Core Foundation reads flags.
    var flag: Bool? {
        switch self {
        case .flag(let flag): return flag
        case .number(let number): return number.boolValue
        case .other(let value):
            if let flag = value as? Bool { return flag }
            if let number = value as? NSNumber { return number.boolValue }
            return nil
        case .text, .data: return nil
        }
    }

    /// A whole number in `Int64` range. A Swift `Bool` is not one; an `NSNumber` holding a
    /// fraction or an out-of-range value is not one either.
    var integer: Int64? {
        switch self {
        case .number(let number): return Self.integer(exactly: number)
        case .other(let value):
            if type(of: value) == Bool.self { return nil }
            if let integer = value as? any BinaryInteger { return Int64(exactly: integer) }
            guard let number = value as? NSNumber else { return nil }
            return Self.integer(exactly: number)
        case .text, .data, .flag: return nil
        }
    }

    /// The value as an object of class `Object`, such as `SecAccessControl`.
    func object<Object: AnyObject>(_ objectClass: Object.Type) -> Object? {
        if case .other(let value) = self { return value as? Object }
        return nil
    }

    /// The value's dynamic type for messages; never its contents, which may be secret.
    var typeName: String {
        switch self {
        case .text: return "String"
        case .data: return "Data"
        case .flag: return "Bool"
        case .number(let number): return Self.typeName(of: number)
        case .other(let value): return Self.typeName(of: value)
        }
    }

    /// The number if it is whole and fits `Int64`. An integer NSNumber is read as the integer
    /// it holds, never through `Double`, which cannot hold every integer from 2^53 on
    /// (`kSecMatchLimit: Int.max` must stay `Int.max`); only a floating-point one is checked
    /// for being whole.
    private static func integer(exactly number: NSNumber) -> Int64? {
        switch number.objCType.pointee {
        case CChar(UInt8(ascii: "c")), CChar(UInt8(ascii: "s")), CChar(UInt8(ascii: "i")),
             CChar(UInt8(ascii: "l")), CChar(UInt8(ascii: "q")):
            return number.int64Value
        case CChar(UInt8(ascii: "C")), CChar(UInt8(ascii: "S")), CChar(UInt8(ascii: "I")),
             CChar(UInt8(ascii: "L")), CChar(UInt8(ascii: "Q")):
            return Int64(exactly: number.uint64Value)
        default:
            break
        }
        let real = number.doubleValue
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        guard real.isFinite, real.rounded(.towardZero) == real,
              real >= -9_223_372_036_854_775_808.0, real < 9_223_372_036_854_775_808.0 else { return nil }
        return number.int64Value
    }

    /// The value as `key` stores it, or `errSecParam` naming the key and the expected type.
    ///
    /// As on Apple platforms, the attributes that take a String or a Data
    /// (`AttributeKey.acceptsStringOrData`) take either, in the form `ValueTypes` stores; an
    /// access group given as Data is read as its UTF-8 text.
    func attribute(for key: AttributeKey) throws -> AttributeValue {
        let parsed: AttributeValue?
        switch key.valueKind {
        case .string:
            if let text {
                parsed = .string(text)
            } else if let data, key.acceptsStringOrData {
                parsed = .string(ValueTypes.storedText(of: data))
            } else if let data, key == .accessGroup {
                parsed = String(validating: data, as: UTF8.self).map(AttributeValue.string)
            } else {
                parsed = nil
            }
        case .data:
            if let data {
                parsed = .data(data)
            } else if let text, key.acceptsStringOrData {
                parsed = .data(Data(text.utf8))
            } else {
                parsed = nil
            }
        case .integer:
            // Apple's key types and classes are strings of digits (kSecAttrKeyTypeRSA is "42").
            let digits = key.acceptsDecimalText ? text.flatMap { Int64($0) } : nil
            parsed = (integer ?? digits).map(AttributeValue.integer)
        case .bool: parsed = flag.map(AttributeValue.bool)
        case .date: parsed = date.map(AttributeValue.date)
        }
        guard let parsed else {
            let expected = key.acceptsStringOrData ? "a String (CFString) or Data (CFData)"
                : key == .accessGroup ? "a String (CFString), or Data holding UTF-8 text" : key.valueKind.typeDescription
            throw KeychainError.badParameter(
                "The value for \(key.appleConstantName) must be \(expected), not \(typeName).")
        }
        return parsed
    }

    /// Whether the caller gave this value for `key` as the other type Apple accepts for it, so
    /// that it must come back as that type (`ValueTypes`).
    func isOtherType(for key: AttributeKey) -> Bool {
        guard key.acceptsStringOrData else { return false }
        return key.valueKind == .string ? text == nil && data != nil : data == nil && text != nil
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
    /// Whether a String of decimal digits is read as this integer attribute, as Apple's
    /// `kSecAttrKeyType…` and `kSecAttrKeyClass…` constants are given.
    var acceptsDecimalText: Bool {
        self == .type || self == .keyClass || self == .keySizeInBits || self == .effectiveKeySize
    }

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
        case .valueTypes: return "(the record of value types)"
        case .keyClass: return "kSecAttrKeyClass"
        case .applicationLabel: return "kSecAttrApplicationLabel"
        case .applicationTag: return "kSecAttrApplicationTag"
        case .keySizeInBits: return "kSecAttrKeySizeInBits"
        case .effectiveKeySize: return "kSecAttrEffectiveKeySize"
        case .certificateType: return "kSecAttrCertificateType"
        case .certificateEncoding: return "kSecAttrCertificateEncoding"
        case .issuer: return "kSecAttrIssuer"
        case .serialNumber: return "kSecAttrSerialNumber"
        case .subject: return "kSecAttrSubject"
        case .publicKeyHash: return "kSecAttrPublicKeyHash"
        }
    }
}
