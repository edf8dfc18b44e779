// Apple's search, return, value and "use" keys and values, with Apple's strings
// (SecItemConstants.c). What each does on Linux is in the README's "Apple-style usage".
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: Search

nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: Return types

nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"

// MARK: Values

nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: Other keys ("use")

/// Deprecated by Apple ("Not implemented on this platform"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// Deprecated by Apple ("Use kSecUseAuthenticationContext and set LAContext.localizedReason property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Deprecated by Apple ("Use kSecUseAuthenticationUI instead."); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// Deprecated by Apple ("Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Deprecated by Apple ("Instead of kSecUseAuthenticationUI, use kSecUseAuthenticationContext and set LAContext.interactionNotAllowed property"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
