public import Foundation
import KeychainCore

/// Apple's access-control constraints, with Apple's bit values (SecAccessControl.h).
public struct SecAccessControlCreateFlags: OptionSet, Hashable, Sendable {
    /// The flags' bits, Apple's values.
    public let rawValue: CFOptionFlags
    /// Flags with the given bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Apple: any biometry or the device passcode; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Apple: any enrolled biometry; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Apple's older name of `biometryAny`.
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Apple: the biometry enrolled now; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Apple's older name of `biometryCurrentSet`.
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Apple: the device passcode; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// Apple: a paired watch; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Apple's newer name of `watch`.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// Apple: any one of the given constraints suffices.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Apple: all the given constraints are required.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// Apple: a private key's use (Secure Enclave); on Linux an item stored with it gets `errSecUnimplemented`.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// Apple: an application-supplied password; on Linux an item stored with it gets `errSecUnimplemented`.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}

/// An access-control object for `kSecAttrAccessControl`: an accessibility class plus
/// constraints.
///
/// Linux has no Secure Enclave, biometry or device passcode, so the SecItem functions refuse
/// (with `errSecUnimplemented` and a message) any item whose access control carries
/// constraints, rather than store it without the protection the caller asked for. One with no
/// constraints is the same as its accessibility class given as `kSecAttrAccessible`.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
    /// The accessibility class, e.g. `kSecAttrAccessibleWhenUnlocked` ("ak").
    public let protection: String
    /// The constraints the object was created with.
    public let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    /// Equal when the protection class and flags are.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    /// Hashes the protection class and flags.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags)
    }

    /// The protection class and flags, for logs (no secret is involved).
    public var description: String { "SecAccessControl(protection: \(protection), flags: \(flags.rawValue))" }
}

/// Creates an access-control object, as on Apple platforms.
///
/// `protection` must be one of the `kSecAttrAccessible*` values; otherwise this returns nil
/// and sets `error` to a `CFError` with `errSecParam`. The object is created whatever the
/// flags; whether an item can use it is decided when the item is stored.
public func SecAccessControlCreateWithFlags(_ allocator: CFAllocator?, _ protection: CFTypeRef,
                                            _ flags: SecAccessControlCreateFlags,
                                            _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecAccessControl? {
    guard let name = SecItemValue.other(protection).text, SecItemKeyRole.accessibilityValues.contains(name) else {
        let message = "The protection of SecAccessControlCreateWithFlags must be a kSecAttrAccessible value."
        error?.pointee = Unmanaged.passRetained(NSError.keychainError(errSecParam, message))
        return nil
    }
    return SecAccessControl(protection: name, flags: flags)
}

/// The type identifier Core Foundation would give `SecAccessControl`; a constant here.
public func SecAccessControlGetTypeID() -> CFTypeID { 0x5365_6341 }
