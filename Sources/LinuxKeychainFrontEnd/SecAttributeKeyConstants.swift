// Apple's item-class and attribute keys, with the string values of Apple's own
// SecItemConstants.c, so that code comparing them, or data written with them, agrees with
// Apple platforms. The attribute strings equal `AttributeKey`'s raw values in KeychainCore;
// `SecItemKeyRole` maps one onto the other.
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: Item classes

/// The item-class key of every SecItem dictionary; on Linux only the two password classes are stored.
nonisolated(unsafe) public let kSecClass: CFString = ConstantString(string: "class")
/// `kSecClass` value: a generic password, identified by access group, service and account.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = ConstantString(string: "genp")
/// `kSecClass` value: an internet password, identified by access group, account, server, protocol, port, path, authentication type and security domain.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = ConstantString(string: "inet")
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassCertificate: CFString = ConstantString(string: "cert")
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassKey: CFString = ConstantString(string: "keys")
/// Not stored on Linux: SecItem calls with this class return `errSecUnimplemented`.
nonisolated(unsafe) public let kSecClassIdentity: CFString = ConstantString(string: "idnt")

// MARK: Attributes of password items

/// When the item is readable (a `kSecAttrAccessible…` value); on Linux stored and matched, while the backend's own protection decides readability.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = ConstantString(string: "pdmn")
/// A `SecAccessControl`; with no flags it stands for its protection class, with any flag an add or update returns `errSecUnimplemented`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = ConstantString(string: "accc")
/// The item's access group, part of its primary key; unset, a program's own group (no entitlement check on Linux).
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = ConstantString(string: "agrp")
/// Whether the item is synchronized; stored and matched as part of the primary key, but nothing is synchronized on Linux.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = ConstantString(string: "sync")
/// When the item was created (`Date`), set by the library; ignored in adds and updates.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = ConstantString(string: "cdat")
/// When the item was last changed (`Date`), set by the library; ignored in adds and updates.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = ConstantString(string: "mdat")
/// A user-visible description of the kind of item; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrDescription: CFString = ConstantString(string: "desc")
/// A user-editable comment; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrComment: CFString = ConstantString(string: "icmt")
/// The creator code (a FourCC number); stored and matched as a number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = ConstantString(string: "crtr")
/// The item type code (a FourCC number); stored and matched as a number.
nonisolated(unsafe) public let kSecAttrType: CFString = ConstantString(string: "type")
/// The user-visible label; stored and matched as a string.
nonisolated(unsafe) public let kSecAttrLabel: CFString = ConstantString(string: "labl")
/// Whether the item is hidden from keychain browsers; stored and matched as a flag.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = ConstantString(string: "invi")
/// Whether the item records that no password exists; stored and matched as a flag.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = ConstantString(string: "nega")
/// The account name; stored and matched as a string, part of both password classes' primary keys.
nonisolated(unsafe) public let kSecAttrAccount: CFString = ConstantString(string: "acct")
/// A generic password's service; stored and matched as a string, part of its primary key.
nonisolated(unsafe) public let kSecAttrService: CFString = ConstantString(string: "svce")
/// User-defined data of a generic password; stored and matched as `Data`.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = ConstantString(string: "gena")
/// An internet password's security domain (realm); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = ConstantString(string: "sdmn")
/// An internet password's server (domain name or IP address); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrServer: CFString = ConstantString(string: "srvr")
/// An internet password's protocol (a `kSecAttrProtocol…` value); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = ConstantString(string: "ptcl")
/// An internet password's authentication scheme (a `kSecAttrAuthenticationType…` value); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = ConstantString(string: "atyp")
/// An internet password's port; stored and matched as a number.
nonisolated(unsafe) public let kSecAttrPort: CFString = ConstantString(string: "port")
/// An internet password's path (typically of a URL); stored and matched as a string.
nonisolated(unsafe) public let kSecAttrPath: CFString = ConstantString(string: "path")
/// Apple's synchronization view hint; accepted, no effect on Linux.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = ConstantString(string: "vwht")
/// Apple's misspelled alias of `kSecAttrPersistentReference`.
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = ConstantString(string: "persistref")
/// A persistent reference (`Data` from `kSecReturnPersistentRef`); finds that item in any process and backend.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = ConstantString(string: "persistref")

// MARK: Attributes of the macOS file keychain (accepted by name, see SecItemKeyRole)

/// A macOS `SecAccess` ACL; Linux cannot enforce one, so it is refused.
nonisolated(unsafe) public let kSecAttrAccess: CFString = ConstantString(string: "acls")
/// macOS file-keychain attribute: whether the item has a custom icon; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrHasCustomIcon: CFString = ConstantString(string: "cusi")
/// macOS file-keychain attribute: an AppleShare volume; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrVolume: CFString = ConstantString(string: "volm")
/// macOS file-keychain attribute: an AppleShare server address; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrAddress: CFString = ConstantString(string: "addr")
/// macOS file-keychain attribute: an AppleShare server signature; accepted by name (see SecItemKeyRole).
nonisolated(unsafe) public let kSecAttrAFPServerSignature: CFString = ConstantString(string: "afps")
/// Certificate and key attribute: a certificate's alias (an email address); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrAlias: CFString = ConstantString(string: "alis")

// MARK: Attributes of certificates and keys (declared so code compiles; those classes are not stored)

/// Certificate and key attribute: a certificate's subject; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSubject: CFString = ConstantString(string: "subj")
/// Certificate and key attribute: a certificate's issuer; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = ConstantString(string: "issr")
/// Certificate and key attribute: a certificate's serial number; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = ConstantString(string: "slnr")
/// Certificate and key attribute: a certificate's subject key ID; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = ConstantString(string: "skid")
/// Certificate and key attribute: a certificate's public key hash; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = ConstantString(string: "pkhh")
/// Certificate and key attribute: a certificate's type; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = ConstantString(string: "ctyp")
/// Certificate and key attribute: a certificate's encoding; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = ConstantString(string: "cenc")
/// Certificate and key attribute: a key's class (public, private, symmetric); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = ConstantString(string: "kcls")
/// Certificate and key attribute: a key's application label; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = ConstantString(string: "klbl")
/// Certificate and key attribute: whether a key is stored permanently; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = ConstantString(string: "perm")
/// Certificate and key attribute: whether a key is sensitive; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = ConstantString(string: "sens")
/// Certificate and key attribute: whether a key can be exported; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = ConstantString(string: "extr")
/// Certificate and key attribute: a key's private tag; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = ConstantString(string: "atag")
/// Certificate and key attribute: a key's algorithm (a `kSecAttrKeyType…` value); declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyType: CFString = ConstantString(string: "type")
/// Certificate and key attribute: a derived key's pseudo-random function; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRF: CFString = ConstantString(string: "prf")
/// Certificate and key attribute: a derived key's salt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrSalt: CFString = ConstantString(string: "salt")
/// Certificate and key attribute: a derived key's round count; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrRounds: CFString = ConstantString(string: "rounds")
/// Certificate and key attribute: a key's size in bits; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = ConstantString(string: "bsiz")
/// Certificate and key attribute: a key's effective size in bits; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = ConstantString(string: "esiz")
/// Certificate and key attribute: whether a key can encrypt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = ConstantString(string: "encr")
/// Certificate and key attribute: whether a key can decrypt; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = ConstantString(string: "decr")
/// Certificate and key attribute: whether a key can derive other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = ConstantString(string: "drve")
/// Certificate and key attribute: whether a key can sign; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanSign: CFString = ConstantString(string: "sign")
/// Certificate and key attribute: whether a key can verify signatures; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = ConstantString(string: "vrfy")
/// Certificate and key attribute: whether a key can wrap other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = ConstantString(string: "wrap")
/// Certificate and key attribute: whether a key can unwrap other keys; declared so code compiles (those classes are not stored on Linux).
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = ConstantString(string: "unwp")
/// The token holding a key (the Secure Enclave on Apple platforms); `errSecUnimplemented` on Linux.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = ConstantString(string: "tkid")
/// `SecKeyCreateRandomKey` parameter: attributes of the private key alone (a dictionary).
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = ConstantString(string: "private")
/// `SecKeyCreateRandomKey` parameter: attributes of the public key alone (a dictionary).
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = ConstantString(string: "public")
