import Foundation
import KeychainCore

/// Reads the keys and values of an Apple query dictionary: the costliest step of a SecItem
/// call, so it takes a shortcut where Foundation allows one.
///
/// Iterating an `NSDictionary` on Linux looks every key up again, hashing each `NSString` key
/// character by character, and passes every value through casts to protocols before handing
/// it out. For Foundation's own dictionary classes this takes keys and values from storage as
/// they are, converts the classes a query is mostly made of (strings, data, numbers, booleans)
/// by an exact class check, and looks up only the other values as iterating would. The values
/// read exactly as iterating would give them; `SecItemDictionaryTests` compares the two.
///
/// Each `unsafeDowncast` follows an exact class check: it spares a second runtime cast.
/// As with any Foundation collection, the caller must not mutate the dictionary meanwhile.
enum SecItemDictionary {
    /// Calls `body` with every key as stored (a key is not converted) and its value, in the
    /// dictionary's order, until `body` throws.
    static func forEachEntry(of dictionary: NSDictionary, _ body: (_ key: Any, _ value: SecItemValue) throws -> Void) rethrows {
        let dictionaryClass = type(of: dictionary)
        guard dictionaryClass == NSDictionary.self || dictionaryClass == NSMutableDictionary.self else {
            // Another subclass promises no common order for `allKeys` and `allValues`.
            for (key, value) in dictionary { try body(key, .other(value)) }
            return
        }
        // Both come from the one storage in its one order, as a Swift dictionary's `keys` and
        // `values` do, so they pair up by position.
        for (key, stored) in zip(dictionary.allKeys, dictionary.allValues) {
            try body(key, converted(stored) ?? .other(dictionary.object(forKey: key) ?? stored))
        }
    }

    /// The name of a key as stored, if it is a string.
    static func name(ofKey key: Any) -> String? {
        if type(of: key) == NSString.self { return unsafeDowncast(key as AnyObject, to: NSString.self) as String }
        return key as? String
    }

    /// A stored value as iterating would hand it out, when its class is exactly one of those a
    /// query is mostly made of; nil for any other, which iterating may unbox or bridge.
    private static func converted(_ stored: Any) -> SecItemValue? {
        let storedClass = type(of: stored)
        if storedClass == NSString.self {
            return .text(unsafeDowncast(stored as AnyObject, to: NSString.self) as String)
        }
        if storedClass == NSData.self {
            // One copy of the bytes: Foundation's bridge (`as Data`) on Linux copies them one
            // by one through a generic sequence.
            let data = unsafeDowncast(stored as AnyObject, to: NSData.self)
            return .data(Data(bytes: data.bytes, count: data.length))
        }
        if storedClass is NSNumber.Type {
            let number = unsafeDowncast(stored as AnyObject, to: NSNumber.self)
            // Foundation hands out its two CFBooleans, which `true` and `false` bridge to, as
            // `Bool`; `NSNumber(value:)` returns those same two objects.
            if number === kCFBooleanTrue { return .flag(true) }
            if number === kCFBooleanFalse { return .flag(false) }
            return storedClass == NSNumber.self ? .number(number) : nil
        }
        return nil
    }
}
