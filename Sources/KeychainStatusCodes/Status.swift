/// Apple's `OSStatus`: the result code of every SecItem call.
///
/// The numbers are Apple's own (from `SecBase.h` and `MacErrors.h`), so code that compares
/// against a literal such as `-25300` behaves as it does on Apple platforms.
public typealias OSStatus = Int32

/// `errSecSuccess` (0): No error.
public let errSecSuccess: OSStatus = 0
/// `MacTypes.h`'s "no error", which much keychain code compares against instead of `errSecSuccess`.
public let noErr: OSStatus = 0
/// `errSecUnimplemented` (-4): Function or operation not implemented.
public let errSecUnimplemented: OSStatus = -4
/// `errSecDiskFull` (-34): The disk is full.
public let errSecDiskFull: OSStatus = -34
/// `errSecDskFull` (-34): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDskFull: OSStatus = -34
/// `errSecIO` (-36): I/O error.
public let errSecIO: OSStatus = -36
/// `errSecOpWr` (-49): The file is already open with write permission.
public let errSecOpWr: OSStatus = -49
/// `errSecParam` (-50): One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// `errSecWrPerm` (-61): Write permissions error.
public let errSecWrPerm: OSStatus = -61
/// `errSecAllocate` (-108): Failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// `errSecUserCanceled` (-128): User canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// `errSecBadReq` (-909): Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// `errSecInternalComponent` (-2070): An internal component failed.
public let errSecInternalComponent: OSStatus = -2070
/// `errSecCoreFoundationUnknown` (-4960): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// `errSecNotAvailable` (-25291): No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: OSStatus = -25291
/// `errSecReadOnly` (-25292): This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// `errSecAuthFailed` (-25293): The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// `errSecNoSuchKeychain` (-25294): The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// `errSecInvalidKeychain` (-25295): The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = -25295
/// `errSecDuplicateKeychain` (-25296): A keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = -25296
/// `errSecDuplicateCallback` (-25297): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecDuplicateCallback: OSStatus = -25297
/// `errSecInvalidCallback` (-25298): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidCallback: OSStatus = -25298
/// `errSecDuplicateItem` (-25299): The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// `errSecItemNotFound` (-25300): The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// `errSecBufferTooSmall` (-25301): There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: OSStatus = -25301
/// `errSecDataTooLarge` (-25302): This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = -25302
/// `errSecNoSuchAttr` (-25303): The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// `errSecInvalidItemRef` (-25304): The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: OSStatus = -25304
/// `errSecInvalidSearchRef` (-25305): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidSearchRef: OSStatus = -25305
/// `errSecNoSuchClass` (-25306): The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// `errSecNoDefaultKeychain` (-25307): A default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// `errSecInteractionNotAllowed` (-25308): User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// `errSecReadOnlyAttr` (-25309): The specified attribute could not be modified.
public let errSecReadOnlyAttr: OSStatus = -25309
/// `errSecWrongSecVersion` (-25310): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecWrongSecVersion: OSStatus = -25310
/// `errSecKeySizeNotAllowed` (-25311): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecKeySizeNotAllowed: OSStatus = -25311
/// `errSecNoStorageModule` (-25312): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoStorageModule: OSStatus = -25312
/// `errSecNoCertificateModule` (-25313): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoCertificateModule: OSStatus = -25313
/// `errSecNoPolicyModule` (-25314): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoPolicyModule: OSStatus = -25314
/// `errSecInteractionRequired` (-25315): User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// `errSecDataNotAvailable` (-25316): The contents of this item cannot be retrieved.
public let errSecDataNotAvailable: OSStatus = -25316
/// `errSecDataNotModifiable` (-25317): The contents of this item cannot be modified.
public let errSecDataNotModifiable: OSStatus = -25317
/// `errSecCreateChainFailed` (-25318): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecCreateChainFailed: OSStatus = -25318
/// `errSecInvalidPrefsDomain` (-25319): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPrefsDomain: OSStatus = -25319
/// `errSecInDarkWake` (-25320): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInDarkWake: OSStatus = -25320
/// `errSecACLNotSimple` (-25240): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecACLNotSimple: OSStatus = -25240
/// `errSecPolicyNotFound` (-25241): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPolicyNotFound: OSStatus = -25241
/// `errSecInvalidTrustSetting` (-25242): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTrustSetting: OSStatus = -25242
/// `errSecNoAccessForItem` (-25243): The specified item has no access control.
public let errSecNoAccessForItem: OSStatus = -25243
/// `errSecInvalidOwnerEdit` (-25244): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidOwnerEdit: OSStatus = -25244
/// `errSecTrustNotAvailable` (-25245): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecTrustNotAvailable: OSStatus = -25245
/// `errSecUnsupportedFormat` (-25256): The specified import or export format is not supported.
public let errSecUnsupportedFormat: OSStatus = -25256
/// `errSecUnknownFormat` (-25257): The item you are trying to import has an unknown format.
public let errSecUnknownFormat: OSStatus = -25257
/// `errSecKeyIsSensitive` (-25258): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecKeyIsSensitive: OSStatus = -25258
/// `errSecMultiplePrivKeys` (-25259): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecMultiplePrivKeys: OSStatus = -25259
/// `errSecPassphraseRequired` (-25260): A password is required.
public let errSecPassphraseRequired: OSStatus = -25260
/// `errSecInvalidPasswordRef` (-25261): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidPasswordRef: OSStatus = -25261
/// `errSecInvalidTrustSettings` (-25262): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecInvalidTrustSettings: OSStatus = -25262
/// `errSecNoTrustSettings` (-25263): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecNoTrustSettings: OSStatus = -25263
/// `errSecPkcs12VerifyFailure` (-25264): Apple's result code, declared so code that names it compiles; the keychain calls here never return it.
public let errSecPkcs12VerifyFailure: OSStatus = -25264
/// `errSecDecode` (-26275): Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// `errSecMissingEntitlement` (-34018): A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018
/// `errSecRestrictedAPI` (-34020): This API is restricted.
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
