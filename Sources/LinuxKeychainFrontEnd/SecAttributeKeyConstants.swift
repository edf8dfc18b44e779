// Apple's item-class and attribute keys, with the string values of Apple's own
// SecItemConstants.c, so that code comparing them, or data written with them, agrees with
// Apple platforms. The attribute strings equal `AttributeKey`'s raw values in KeychainCore;
// `SecItemKeyRole` maps one onto the other.
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: Item classes

/// The item-class key of every SecItem dictionary; on Linux only the two password classes are stored.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// `kSecClass` value: a generic password, identified by access group, service and account.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// `kSecClass` value: an internet password, identified by access group, account, server, protocol, port, path, authentication type and security domain.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes of password items

/// When the item is readable (a `kSecAttrAccessible…` value); on Linux stored and matched, while the backend's own protection decides readability.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// A `SecAccessControl`; with no flags it stands for its protection class, with any flag an add or update returns `errSecUnimplemented`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// The item's access group, part of its primary key; unset, a program's own group (no entitlement check on Linux).
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item is synchronized; stored and matched as part of the primary key, but nothing is synchronized on Linux.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// When the item was created (`Date`), set by the library; ignored in adds and updates.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// When the item was last changed (`Date`), set by the library; ignored in adds and updates.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description of the kind of item; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// The creator code (a FourCC number); stored and matched as a number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// The item type code (a FourCC number); stored and matched as a number.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// The user-visible label; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from keychain browsers; stored and matched as a flag.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item records that no password exists; stored and matched as a flag.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// The account name; stored and matched as a string, part of both password classes' primary keys.
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// A generic password's service; stored and matched as a string, part of its primary key.
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// User-defined data of a generic password; stored and matched as `Data`.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// An internet password's security domain (realm); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// An internet password's server (domain name or IP address); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// An internet password's protocol (a `kSecAttrProtocol…` value); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// An internet password's authentication scheme (a `kSecAttrAuthenticationType…` value); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// An internet password's port; stored and matched as a number.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// An internet password's path (typically of a URL); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// Apple's synchronization view hint; accepted, no effect on Linux.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// Apple's misspelled alias of `kSecAttrPersistentReference`.
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
/// A persistent reference (`Data` from `kSecReturnPersistentRef`); finds that item in any process and backend.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"

// MARK: Attributes of the macOS file keychain (accepted by name, see SecItemKeyRole)

/// A macOS `SecAccess` ACL; Linux cannot enforce one, so it is refused.
nonisolated(unsafe) public let kSecAttrAccess: CFString = "acls"
/// macOS file-keychain attribute: whether the item has a custom icon; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrHasCustomIcon: CFString = "cusi"
/// macOS file-keychain attribute: an AppleShare volume; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrVolume: CFString = "volm"
/// macOS file-keychain attribute: an AppleShare server address; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrAddress: CFString = "addr"
/// macOS file-keychain attribute: an AppleShare server signature; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrAFPServerSignature: CFString = "afps"
/// Certificate and key attribute: a certificate's alias (an email address); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrAlias: CFString = "alis"

// MARK: Attributes of certificates and keys (declared so code compiles; those classes are not stored)

/// Certificate and key attribute: a certificate's subject; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// Certificate and key attribute: a certificate's issuer; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// Certificate and key attribute: a certificate's serial number; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// Certificate and key attribute: a certificate's subject key ID; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// Certificate and key attribute: a certificate's public key hash; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// Certificate and key attribute: a certificate's type; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// Certificate and key attribute: a certificate's encoding; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// Certificate and key attribute: a key's class (public, private, symmetric); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// Certificate and key attribute: a key's application label; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Certificate and key attribute: whether a key is stored permanently; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Certificate and key attribute: whether a key is sensitive; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Certificate and key attribute: whether a key can be exported; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// Certificate and key attribute: a key's private tag; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// Certificate and key attribute: a key's algorithm (a `kSecAttrKeyType…` value); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// Certificate and key attribute: a derived key's pseudo-random function; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
/// Certificate and key attribute: a derived key's salt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
/// Certificate and key attribute: a derived key's round count; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
/// Certificate and key attribute: a key's size in bits; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// Certificate and key attribute: a key's effective size in bits; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Certificate and key attribute: whether a key can encrypt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Certificate and key attribute: whether a key can decrypt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Certificate and key attribute: whether a key can derive other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Certificate and key attribute: whether a key can sign; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Certificate and key attribute: whether a key can verify signatures; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Certificate and key attribute: whether a key can wrap other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Certificate and key attribute: whether a key can unwrap other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// The token holding a key (the Secure Enclave on Apple platforms); `errSecUnimplemented` on Linux.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
