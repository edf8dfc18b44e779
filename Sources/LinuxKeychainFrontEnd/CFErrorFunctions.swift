public import Foundation
import KeychainCore

// Core Foundation's CFError accessors, which wrappers such as KeychainAccess call on the error
// that SecAccessControlCreateWithFlags hands out. Signatures are Apple's; a nil error reads as
// empty rather than trapping.

/// The error's domain (`kCFErrorDomainOSStatus` for keychain errors); nil reads as an empty domain.
public func CFErrorGetDomain(_ error: CFError!) -> CFErrorDomain! {
    NSString(string: error?.domain ?? "")
}

/// The error's code (the `OSStatus` for keychain errors); nil reads as 0.
public func CFErrorGetCode(_ error: CFError!) -> CFIndex {
    error?.code ?? 0
}

/// The error's user-info dictionary; nil reads as empty.
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! {
    NSDictionary(dictionary: error?.userInfo ?? [:])
}

/// The error's localized description; nil reads as empty.
public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
    NSString(string: error?.localizedDescription ?? "")
}
