public import Foundation
import KeychainCore

extension Keychain {
    /// The secret for `account` as text, for code that prefers assignment to calls:
    ///
    ///     keychain["alice"] = "s3cr3t"
    ///     let token = keychain["alice"]
    ///     keychain["alice"] = nil          // removes the item
    ///
    /// A subscript cannot throw, so a failure reads as nil or leaves the stored value as it
    /// was, and the error is in `KeychainLastError.current` on this thread. Use
    /// `string(for:)`, `set(_:for:)` and `remove(_:)` where a failure must be handled.
    public subscript(account: String) -> String? {
        get { try? string(for: account) }
        nonmutating set {
            if let newValue { try? set(newValue, for: account) } else { _ = try? remove(account) }
        }
    }

    /// The secret for `account` as bytes; like `subscript(_:)` otherwise.
    public subscript(data account: String) -> Data? {
        get { try? data(for: account) }
        nonmutating set {
            if let newValue { try? set(newValue, for: account) } else { _ = try? remove(account) }
        }
    }

    /// The attributes of the item for `account`, never its secret, as KeychainAccess's
    /// `keychain[attributes: "key"]`; nil when there is none or on a failure, whose error is
    /// in `KeychainLastError.current`. `attributes(for:)` throws instead.
    public subscript(attributes account: String) -> Item? {
        try? attributes(for: account)
    }
}
