import KeychainCore

/// What one key of an Apple query dictionary means here: the table behind the parser, and
/// the one place that decides which of Apple's keys are stored, accepted without effect,
/// refused, or unknown.
enum SecItemKeyRole: Sendable, Equatable {
    case itemClass
    /// An attribute the library stores and matches.
    case attribute(AttributeKey)
    case accessControl
    case valueData
    case valueReference
    case valuePersistentReference
    case returnData
    case returnAttributes
    case returnReference
    case returnPersistentReference
    case matchLimit
    /// A key with no effect on Linux (authentication UI, which keychain file, certificate
    /// filters); its value is not interpreted.
    case withoutEffect
    /// A key whose meaning Linux cannot honour; using it fails with `errSecUnimplemented`
    /// and this reason.
    case unsupported(String)

    /// The role of `name`, or nil when it is no key of Apple's password surface (those fail
    /// with `errSecNoSuchAttr`, as unknown attributes do on Apple platforms).
    static func of(_ name: String) -> SecItemKeyRole? {
        rolesByName[name]
    }

    /// Whether an item of `itemClass` can carry `key`; any other attribute key is
    /// `errSecNoSuchAttr`, as in Apple's schema (a generic password has no server). A switch
    /// rather than a set: it costs no hashing, and a new attribute does not compile until placed.
    static func isAttribute(_ key: AttributeKey, of itemClass: ItemClass) -> Bool {
        switch key {
        case .service, .generic:
            return itemClass == .genericPassword
        case .server, .protocol, .port, .path, .authenticationType, .securityDomain:
            return itemClass == .internetPassword
        case .account, .itemDescription, .comment, .isInvisible, .isNegative:
            return itemClass.holdsPasswords
        case .keyClass, .applicationLabel, .applicationTag, .keySizeInBits, .effectiveKeySize:
            return itemClass == .key
        case .certificateType, .certificateEncoding, .issuer, .serialNumber, .subject, .publicKeyHash:
            return itemClass == .certificate
        case .creator, .type:
            return itemClass != .certificate
        case .accessGroup, .label, .accessible, .synchronizable, .creationDate, .modificationDate, .valueTypes:
            return true
        }
    }

    /// The values `kSecAttrAccessible` accepts.
    static let accessibilityValues: Set<String> = Set([
        kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleAlways,
        kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, kSecAttrAccessibleAlwaysThisDeviceOnly,
    ].map { $0 as String })

    /// Every key's role in one table, so that each key of a dictionary costs one lookup.
    private static let rolesByName: [String: SecItemKeyRole] = {
        var roles: [CFString: SecItemKeyRole] = [
            kSecClass: .itemClass,
            kSecAttrAccessControl: .accessControl,
            kSecValueData: .valueData,
            kSecValueRef: .valueReference,
            kSecValuePersistentRef: .valuePersistentReference,
            kSecAttrPersistentReference: .valuePersistentReference,
            kSecReturnData: .returnData,
            kSecReturnAttributes: .returnAttributes,
            kSecReturnRef: .returnReference,
            kSecReturnPersistentRef: .returnPersistentReference,
            kSecMatchLimit: .matchLimit,
            kSecAttrAccess: .unsupported(
                "kSecAttrAccess (a macOS ACL) cannot be enforced on Linux; leave it out or use kSecAttrAccessible."),
            kSecAttrTokenID: .unsupported("kSecAttrTokenID needs a hardware token (Secure Enclave), which Linux lacks."),
            kSecMatchItemList: .unsupported("kSecMatchItemList is not supported; query by attributes or kSecValuePersistentRef."),
            kSecMatchCaseInsensitive: .unsupported("Case-insensitive matching is not supported; match exact strings."),
            kSecMatchDiacriticInsensitive: .unsupported("Diacritic-insensitive matching is not supported; match exact strings."),
            kSecMatchWidthInsensitive: .unsupported("Width-insensitive matching is not supported; match exact strings."),
        ]
        let withoutEffect: [CFString] = [
            kSecUseItemList, kSecUseKeychain, kSecUseOperationPrompt, kSecUseNoAuthenticationUI,
            kSecUseAuthenticationUI, kSecUseAuthenticationContext, kSecUseDataProtectionKeychain,
            kSecAttrSyncViewHint, kSecMatchSearchList, kSecMatchPolicy, kSecMatchIssuers,
            kSecMatchEmailAddressIfPresent, kSecMatchSubjectContains, kSecMatchSubjectStartsWith,
            kSecMatchSubjectEndsWith, kSecMatchSubjectWholeString, kSecMatchTrustedOnly, kSecMatchValidOnDate,
        ]
        for key in withoutEffect { roles[key] = .withoutEffect }
        var rolesByName = Dictionary(uniqueKeysWithValues: roles.map { ($0.key as String, $0.value) })
        // Attribute names win over any other meaning of the same string.
        // The record of value types is the library's own bookkeeping, never a caller's key.
        for key in AttributeKey.allCases where key != .valueTypes { rolesByName[key.rawValue] = .attribute(key) }
        return rolesByName
    }()
}
