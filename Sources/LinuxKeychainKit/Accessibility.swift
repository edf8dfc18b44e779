/// When an item may be read: Apple's `kSecAttrAccessible` values.
///
/// Linux has no device lock that the stores follow, so the value is stored and returned for
/// code that reads it back (and for items shared with Apple platforms through Vault), and
/// changes nothing about who can read the item here.
public struct Accessibility: RawRepresentable, Hashable, Sendable {
    /// Apple's code, e.g. `"ak"` for `kSecAttrAccessibleWhenUnlocked`.
    public let rawValue: String

    /// The accessibility with Apple's code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `kSecAttrAccessibleWhenUnlocked`, Apple's default.
    public static let whenUnlocked = Accessibility(rawValue: "ak")
    /// `kSecAttrAccessibleAfterFirstUnlock`, the usual choice for background work.
    public static let afterFirstUnlock = Accessibility(rawValue: "ck")
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`
    public static let whenPasscodeSetThisDeviceOnly = Accessibility(rawValue: "akpu")
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`
    public static let whenUnlockedThisDeviceOnly = Accessibility(rawValue: "aku")
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`
    public static let afterFirstUnlockThisDeviceOnly = Accessibility(rawValue: "cku")
}
