// Apple's item-class and attribute keys, with the string values of Apple's own
// SecItemConstants.c, so that code comparing them, or data written with them, agrees with
// Apple platforms. The attribute strings equal `AttributeKey`'s raw values in KeychainCore;
// `SecItemKeyRole` maps one onto the other.
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: Item classes

nonisolated(unsafe) public let kSecClass: CFString = "class"
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes of password items

nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"

// MARK: Attributes of the macOS file keychain (accepted by name, see SecItemKeyRole)

/// A macOS `SecAccess` ACL; Linux cannot enforce one, so it is refused.
nonisolated(unsafe) public let kSecAttrAccess: CFString = "acls"
nonisolated(unsafe) public let kSecAttrHasCustomIcon: CFString = "cusi"
nonisolated(unsafe) public let kSecAttrVolume: CFString = "volm"
nonisolated(unsafe) public let kSecAttrAddress: CFString = "addr"
nonisolated(unsafe) public let kSecAttrAFPServerSignature: CFString = "afps"
nonisolated(unsafe) public let kSecAttrAlias: CFString = "alis"

// MARK: Attributes of certificates and keys (declared so code compiles; those classes are not stored)

nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
