import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// Apple's values, checked against the strings in Apple's SecItemConstants.c and the bits in
/// SecAccessControl.h, so that code comparing them, and data written with them, agree.
@Suite("Apple's constants")
struct SecConstantsTests {
    static var appleStrings: [(CFString, String)] { [
        (kSecClass, "class"), (kSecClassGenericPassword, "genp"), (kSecClassInternetPassword, "inet"),
        (kSecClassCertificate, "cert"), (kSecClassKey, "keys"), (kSecClassIdentity, "idnt"),
        (kSecAttrAccessible, "pdmn"), (kSecAttrAccessControl, "accc"), (kSecAttrAccessGroup, "agrp"),
        (kSecAttrSynchronizable, "sync"), (kSecAttrSynchronizableAny, "syna"), (kSecAttrCreationDate, "cdat"),
        (kSecAttrModificationDate, "mdat"), (kSecAttrDescription, "desc"), (kSecAttrComment, "icmt"),
        (kSecAttrCreator, "crtr"), (kSecAttrType, "type"), (kSecAttrLabel, "labl"), (kSecAttrIsInvisible, "invi"),
        (kSecAttrIsNegative, "nega"), (kSecAttrAccount, "acct"), (kSecAttrService, "svce"), (kSecAttrGeneric, "gena"),
        (kSecAttrSecurityDomain, "sdmn"), (kSecAttrServer, "srvr"), (kSecAttrProtocol, "ptcl"),
        (kSecAttrAuthenticationType, "atyp"), (kSecAttrPort, "port"), (kSecAttrPath, "path"),
        (kSecAttrAFPServerSignature, "afps"), (kSecAttrVolume, "volm"), (kSecAttrPersistentReference, "persistref"),
        (kSecAttrAccessibleWhenUnlocked, "ak"), (kSecAttrAccessibleAfterFirstUnlock, "ck"),
        (kSecAttrAccessibleAlways, "dk"), (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"),
        (kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku"), (kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku"),
        (kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"), (kSecAttrProtocolFTP, "ftp "), (kSecAttrProtocolHTTPS, "htps"),
        (kSecAttrProtocolSOCKS, "sox "), (kSecAttrProtocolPOP3S, "pops"), (kSecAttrAuthenticationTypeHTTPBasic, "http"),
        (kSecAttrAuthenticationTypeHTMLForm, "form"), (kSecAttrAuthenticationTypeDefault, "dflt"),
        (kSecMatchLimit, "m_Limit"), (kSecMatchLimitOne, "m_LimitOne"), (kSecMatchLimitAll, "m_LimitAll"),
        (kSecReturnData, "r_Data"), (kSecReturnAttributes, "r_Attributes"), (kSecReturnRef, "r_Ref"),
        (kSecReturnPersistentRef, "r_PersistentRef"), (kSecValueData, "v_Data"), (kSecValueRef, "v_Ref"),
        (kSecValuePersistentRef, "v_PersistentRef"), (kSecUseDataProtectionKeychain, "nleg"),
        (kSecUseAuthenticationUI, "u_AuthUI"), (kSecUseAuthenticationUIFail, "u_AuthUIF"),
        (kSecUseAuthenticationContext, "u_AuthCtx"), (kSecUseOperationPrompt, "u_OpPrompt"),
    ] }

    @Test func stringsAreApples() {
        for (constant, expected) in Self.appleStrings {
            #expect(constant as String == expected)
        }
    }

    /// The core model stores attributes under the same names the front end accepts.
    @Test func everyStoredAttributeHasItsAppleKey() {
        let keys: [AttributeKey: CFString] = [
            .accessGroup: kSecAttrAccessGroup, .service: kSecAttrService, .account: kSecAttrAccount,
            .server: kSecAttrServer, .protocol: kSecAttrProtocol, .port: kSecAttrPort, .path: kSecAttrPath,
            .authenticationType: kSecAttrAuthenticationType, .securityDomain: kSecAttrSecurityDomain,
            .label: kSecAttrLabel, .itemDescription: kSecAttrDescription, .comment: kSecAttrComment,
            .generic: kSecAttrGeneric, .creator: kSecAttrCreator, .type: kSecAttrType,
            .accessible: kSecAttrAccessible, .synchronizable: kSecAttrSynchronizable,
            .isInvisible: kSecAttrIsInvisible, .isNegative: kSecAttrIsNegative,
            .creationDate: kSecAttrCreationDate, .modificationDate: kSecAttrModificationDate,
            .keyClass: kSecAttrKeyClass, .applicationLabel: kSecAttrApplicationLabel, .applicationTag: kSecAttrApplicationTag,
            .keySizeInBits: kSecAttrKeySizeInBits, .effectiveKeySize: kSecAttrEffectiveKeySize,
            .certificateType: kSecAttrCertificateType, .certificateEncoding: kSecAttrCertificateEncoding,
            .issuer: kSecAttrIssuer, .serialNumber: kSecAttrSerialNumber, .subject: kSecAttrSubject,
            .publicKeyHash: kSecAttrPublicKeyHash,
        ]
        // kSecAttrKeyType is "type", kSecAttrType's name: a key's type is stored in that attribute.
        #expect(kSecAttrKeyType as String == AttributeKey.type.rawValue)
        // The record of value types is the library's own bookkeeping, never a caller's key.
        #expect(Set(keys.keys) == Set(AttributeKey.allCases).subtracting([.valueTypes]))
        for (key, constant) in keys { #expect(key.rawValue == constant as String) }
    }

    @Test func accessControlBitsAreApples() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 2)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 16)
        #expect(SecAccessControlCreateFlags.watch.rawValue == 32)
        #expect(SecAccessControlCreateFlags.or.rawValue == 16384)
        #expect(SecAccessControlCreateFlags.and.rawValue == 32768)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }

    @Test func coreFoundationStandIns() throws {
        #expect(kCFBooleanTrue.boolValue && !kCFBooleanFalse.boolValue)
        var error: Unmanaged<CFError>?
        _ = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kCFBooleanTrue, [], &error)
        let failure = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetCode(failure) == CFIndex(errSecParam))
        #expect(CFErrorGetDomain(failure) as String == kCFErrorDomainOSStatus as String)
        #expect((CFErrorCopyUserInfo(failure) as? [String: Any])?[NSLocalizedDescriptionKey] is String)
    }
}
