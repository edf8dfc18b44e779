// Apple's search, return, value and "use" keys and values, with Apple's strings
// (SecItemConstants.c). What each does on Linux is in docs/apple-api.md.
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: Search

/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchPolicy: CFString = ConstantString(string: "m_Policy")
/// Limits a search to the given items; `errSecUnimplemented` on Linux.
nonisolated(unsafe) public let kSecMatchItemList: CFString = ConstantString(string: "m_ItemList")
/// The macOS keychain files to search; accepted, no effect on Linux.
nonisolated(unsafe) public let kSecMatchSearchList: CFString = ConstantString(string: "m_SearchList")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchIssuers: CFString = ConstantString(string: "m_Issuers")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = ConstantString(string: "m_EmailAddressIfPresent")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = ConstantString(string: "m_SubjectContains")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = ConstantString(string: "m_SubjectStartsWith")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = ConstantString(string: "m_SubjectEndsWith")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = ConstantString(string: "m_SubjectWholeString")
/// Asks for case-insensitive string matching; `errSecUnimplemented` on Linux, where matching is exact.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = ConstantString(string: "m_CaseInsensitive")
/// Asks for diacritic-insensitive string matching; `errSecUnimplemented` on Linux, where matching is exact.
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = ConstantString(string: "m_DiacriticInsensitive")
/// Asks for width-insensitive string matching; `errSecUnimplemented` on Linux, where matching is exact.
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = ConstantString(string: "m_WidthInsensitive")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = ConstantString(string: "m_TrustedOnly")
/// A certificate search filter; accepted, no effect on Linux (certificates are not stored).
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = ConstantString(string: "m_ValidOnDate")
/// How many items a search returns: `kSecMatchLimitOne`, `kSecMatchLimitAll` or a number of at least 1.
nonisolated(unsafe) public let kSecMatchLimit: CFString = ConstantString(string: "m_Limit")
/// `kSecMatchLimit` value: return at most one item (the default).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = ConstantString(string: "m_LimitOne")
/// `kSecMatchLimit` value: return every matching item, in insertion order.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = ConstantString(string: "m_LimitAll")

// MARK: Return types

/// Asks a search to return the secret (`Data`).
nonisolated(unsafe) public let kSecReturnData: CFString = ConstantString(string: "r_Data")
/// Asks a search to return the item's attributes (a dictionary).
nonisolated(unsafe) public let kSecReturnAttributes: CFString = ConstantString(string: "r_Attributes")
/// Asks a search to return a reference to the item (a `SecKeychainItem`).
nonisolated(unsafe) public let kSecReturnRef: CFString = ConstantString(string: "r_Ref")
/// Asks a search to return a persistent reference (`Data` that finds the item later, in any process).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = ConstantString(string: "r_PersistentRef")

// MARK: Values

/// The secret (`Data`); required on add, and in a query only type-checked (it never narrows a search).
nonisolated(unsafe) public let kSecValueData: CFString = ConstantString(string: "v_Data")
/// A `SecKeychainItem` from `kSecReturnRef`: finds that item.
nonisolated(unsafe) public let kSecValueRef: CFString = ConstantString(string: "v_Ref")
/// A persistent reference from `kSecReturnPersistentRef`: finds that item; other data is `errSecParam`.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = ConstantString(string: "v_PersistentRef")

// MARK: Other keys ("use")

/// Deprecated by Apple ("Not implemented on this platform"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseItemList: CFString = ConstantString(string: "u_ItemList")
/// The macOS keychain file to use; accepted, no effect on Linux (there is one keychain, the selected backend).
nonisolated(unsafe) public let kSecUseKeychain: CFString = ConstantString(string: "u_Keychain")
/// Deprecated by Apple ("Use kSecUseAuthenticationContext and set LAContext.localizedReason property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = ConstantString(string: "u_OpPrompt")
/// Deprecated by Apple ("Use kSecUseAuthenticationUI instead."); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = ConstantString(string: "u_NoAuthUI")
/// Whether the system may prompt the user; accepted, no effect on Linux, which never prompts.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = ConstantString(string: "u_AuthUI")
/// An authentication context for the item; accepted, no effect on Linux.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = ConstantString(string: "u_AuthCtx")
/// Asks for the data-protection keychain on macOS; accepted, no effect (Linux always behaves as that keychain).
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = ConstantString(string: "nleg")
/// Deprecated by Apple ("Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = ConstantString(string: "u_AuthUIA")
/// Deprecated by Apple ("Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = ConstantString(string: "u_AuthUIF")
/// `kSecUseAuthenticationUI` value: skip items that would need authentication; no effect on Linux.
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = ConstantString(string: "u_AuthUIS")
