/// Apple's `OSStatus`: the result code of every SecItem call.
///
/// The numbers are Apple's own (from `SecBase.h` and `MacErrors.h`), so code that compares
/// against a literal such as `-25300` behaves as it does on Apple platforms.
public typealias OSStatus = Int32

public let errSecSuccess: OSStatus = 0
/// `MacTypes.h`'s "no error", which much keychain code compares against instead of `errSecSuccess`.
public let noErr: OSStatus = 0
public let errSecUnimplemented: OSStatus = -4
public let errSecDiskFull: OSStatus = -34
public let errSecDskFull: OSStatus = -34
public let errSecIO: OSStatus = -36
public let errSecOpWr: OSStatus = -49
public let errSecParam: OSStatus = -50
public let errSecWrPerm: OSStatus = -61
public let errSecAllocate: OSStatus = -108
public let errSecUserCanceled: OSStatus = -128
public let errSecBadReq: OSStatus = -909
public let errSecInternalComponent: OSStatus = -2070
public let errSecCoreFoundationUnknown: OSStatus = -4960
public let errSecNotAvailable: OSStatus = -25291
public let errSecReadOnly: OSStatus = -25292
public let errSecAuthFailed: OSStatus = -25293
public let errSecNoSuchKeychain: OSStatus = -25294
public let errSecInvalidKeychain: OSStatus = -25295
public let errSecDuplicateKeychain: OSStatus = -25296
public let errSecDuplicateCallback: OSStatus = -25297
public let errSecInvalidCallback: OSStatus = -25298
public let errSecDuplicateItem: OSStatus = -25299
public let errSecItemNotFound: OSStatus = -25300
public let errSecBufferTooSmall: OSStatus = -25301
public let errSecDataTooLarge: OSStatus = -25302
public let errSecNoSuchAttr: OSStatus = -25303
public let errSecInvalidItemRef: OSStatus = -25304
public let errSecInvalidSearchRef: OSStatus = -25305
public let errSecNoSuchClass: OSStatus = -25306
public let errSecNoDefaultKeychain: OSStatus = -25307
public let errSecInteractionNotAllowed: OSStatus = -25308
public let errSecReadOnlyAttr: OSStatus = -25309
public let errSecWrongSecVersion: OSStatus = -25310
public let errSecKeySizeNotAllowed: OSStatus = -25311
public let errSecNoStorageModule: OSStatus = -25312
public let errSecNoCertificateModule: OSStatus = -25313
public let errSecNoPolicyModule: OSStatus = -25314
public let errSecInteractionRequired: OSStatus = -25315
public let errSecDataNotAvailable: OSStatus = -25316
public let errSecDataNotModifiable: OSStatus = -25317
public let errSecCreateChainFailed: OSStatus = -25318
public let errSecInvalidPrefsDomain: OSStatus = -25319
public let errSecInDarkWake: OSStatus = -25320
public let errSecACLNotSimple: OSStatus = -25240
public let errSecPolicyNotFound: OSStatus = -25241
public let errSecInvalidTrustSetting: OSStatus = -25242
public let errSecNoAccessForItem: OSStatus = -25243
public let errSecInvalidOwnerEdit: OSStatus = -25244
public let errSecTrustNotAvailable: OSStatus = -25245
public let errSecUnsupportedFormat: OSStatus = -25256
public let errSecUnknownFormat: OSStatus = -25257
public let errSecKeyIsSensitive: OSStatus = -25258
public let errSecMultiplePrivKeys: OSStatus = -25259
public let errSecPassphraseRequired: OSStatus = -25260
public let errSecInvalidPasswordRef: OSStatus = -25261
public let errSecInvalidTrustSettings: OSStatus = -25262
public let errSecNoTrustSettings: OSStatus = -25263
public let errSecPkcs12VerifyFailure: OSStatus = -25264
public let errSecDecode: OSStatus = -26275
public let errSecMissingEntitlement: OSStatus = -34018
public let errSecRestrictedAPI: OSStatus = -34020

/// The one-line, secret-free explanation of a status, as `SecCopyErrorMessageString` returns it.
///
/// Every status gets a sentence; unknown ones say their number, so nothing is ever blank.
package func keychainStatusMessage(_ status: OSStatus) -> String {
    switch status {
    case errSecSuccess: return "No error."
    case errSecUnimplemented: return "Function or operation not implemented."
    case errSecDiskFull: return "The disk is full."
    case errSecIO: return "I/O error."
    case errSecOpWr: return "The file is already open with write permission."
    case errSecParam: return "One or more parameters passed to a function were not valid."
    case errSecWrPerm: return "Write permissions error."
    case errSecAllocate: return "Failed to allocate memory."
    case errSecUserCanceled: return "User canceled the operation."
    case errSecBadReq: return "Bad parameter or invalid state for operation."
    case errSecInternalComponent: return "An internal component failed."
    case errSecNotAvailable: return "No keychain is available. You may need to restart your computer."
    case errSecReadOnly: return "This keychain cannot be modified."
    case errSecAuthFailed: return "The user name or passphrase you entered is not correct."
    case errSecNoSuchKeychain: return "The specified keychain could not be found."
    case errSecInvalidKeychain: return "The specified keychain is not a valid keychain file."
    case errSecDuplicateKeychain: return "A keychain with the same name already exists."
    case errSecDuplicateItem: return "The specified item already exists in the keychain."
    case errSecItemNotFound: return "The specified item could not be found in the keychain."
    case errSecBufferTooSmall: return "There is not enough memory available to use the specified item."
    case errSecDataTooLarge: return "This item contains information which is too large or in a format that cannot be displayed."
    case errSecNoSuchAttr: return "The specified attribute does not exist."
    case errSecInvalidItemRef: return "The specified item is no longer valid. It may have been deleted from the keychain."
    case errSecNoSuchClass: return "The specified item does not appear to be a valid keychain item."
    case errSecNoDefaultKeychain: return "A default keychain could not be found."
    case errSecInteractionNotAllowed: return "User interaction is not allowed."
    case errSecReadOnlyAttr: return "The specified attribute could not be modified."
    case errSecInteractionRequired: return "User interaction is required, but is currently not allowed."
    case errSecDataNotAvailable: return "The contents of this item cannot be retrieved."
    case errSecDataNotModifiable: return "The contents of this item cannot be modified."
    case errSecNoAccessForItem: return "The specified item has no access control."
    case errSecUnsupportedFormat: return "The specified import or export format is not supported."
    case errSecUnknownFormat: return "The item you are trying to import has an unknown format."
    case errSecPassphraseRequired: return "A password is required."
    case errSecDecode: return "Unable to decode the provided data."
    case errSecMissingEntitlement: return "A required entitlement isn't present."
    case errSecRestrictedAPI: return "This API is restricted."
    default: return "Unknown keychain status \(status)."
    }
}
