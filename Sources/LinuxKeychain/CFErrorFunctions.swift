public import Foundation
import KeychainCore

// Core Foundation's CFError accessors, which wrappers such as KeychainAccess call on the error
// that SecAccessControlCreateWithFlags hands out. Signatures are Apple's; a nil error reads as
// empty rather than trapping.

public func CFErrorGetDomain(_ error: CFError!) -> CFErrorDomain! {
    NSString(string: error?.domain ?? "")
}

public func CFErrorGetCode(_ error: CFError!) -> CFIndex {
    error?.code ?? 0
}

public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! {
    NSDictionary(dictionary: error?.userInfo ?? [:])
}

public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
    NSString(string: error?.localizedDescription ?? "")
}
