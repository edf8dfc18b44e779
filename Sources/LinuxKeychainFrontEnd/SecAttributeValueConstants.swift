// The values Apple defines for attributes, with Apple's strings (SecItemConstants.c).
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: kSecAttrAccessible

/// `kSecAttrAccessible` value: readable while the device is unlocked on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// `kSecAttrAccessible` value: readable after the first unlock until restart on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Deprecated by Apple ("Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// `kSecAttrAccessible` value: readable while unlocked, only with a passcode set, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// `kSecAttrAccessible` value: readable while unlocked, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// `kSecAttrAccessible` value: readable after the first unlock, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Deprecated by Apple ("Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

// MARK: kSecAttrSynchronizable

/// In a query: match synchronizable and non-synchronizable items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"

// MARK: kSecAttrProtocol

/// `kSecAttrProtocol` value: FTP.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// `kSecAttrProtocol` value: an FTP account.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `kSecAttrProtocol` value: HTTP.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// `kSecAttrProtocol` value: IRC.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// `kSecAttrProtocol` value: NNTP.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `kSecAttrProtocol` value: POP3.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `kSecAttrProtocol` value: SMTP.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `kSecAttrProtocol` value: SOCKS.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `kSecAttrProtocol` value: IMAP.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// `kSecAttrProtocol` value: LDAP.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `kSecAttrProtocol` value: AppleTalk.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `kSecAttrProtocol` value: AFP.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// `kSecAttrProtocol` value: Telnet.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// `kSecAttrProtocol` value: SSH.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// `kSecAttrProtocol` value: FTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `kSecAttrProtocol` value: HTTPS.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `kSecAttrProtocol` value: an HTTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `kSecAttrProtocol` value: an HTTPS proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `kSecAttrProtocol` value: an FTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `kSecAttrProtocol` value: SMB.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// `kSecAttrProtocol` value: RTSP.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `kSecAttrProtocol` value: an RTSP proxy.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `kSecAttrProtocol` value: DAAP.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// `kSecAttrProtocol` value: EPPC (remote Apple events).
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `kSecAttrProtocol` value: IPP.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// `kSecAttrProtocol` value: NNTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `kSecAttrProtocol` value: LDAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `kSecAttrProtocol` value: Telnet over TLS.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `kSecAttrProtocol` value: IMAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `kSecAttrProtocol` value: IRC over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `kSecAttrProtocol` value: POP3 over TLS.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: kSecAttrAuthenticationType

/// `kSecAttrAuthenticationType` value: Windows NTLM.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `kSecAttrAuthenticationType` value: Microsoft Network default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `kSecAttrAuthenticationType` value: Distributed Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `kSecAttrAuthenticationType` value: Remote Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `kSecAttrAuthenticationType` value: HTTP Basic.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `kSecAttrAuthenticationType` value: HTTP Digest.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `kSecAttrAuthenticationType` value: an HTML form.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `kSecAttrAuthenticationType` value: the default scheme.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

// MARK: Key classes and types (declared so code compiles; keys are not stored)

/// `kSecAttrKeyClass` value: a public key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// `kSecAttrKeyClass` value: a private key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// `kSecAttrKeyClass` value: a symmetric key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// `kSecAttrKeyType` value: RSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// `kSecAttrKeyType` value: DSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeDSA: CFString = "43"
/// `kSecAttrKeyType` value: AES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeAES: CFString = "2147483649"
/// `kSecAttrKeyType` value: DES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeDES: CFString = "14"
/// `kSecAttrKeyType` value: 3DES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyType3DES: CFString = "17"
/// `kSecAttrKeyType` value: RC4; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRC4: CFString = "25"
/// `kSecAttrKeyType` value: RC2; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRC2: CFString = "23"
/// `kSecAttrKeyType` value: CAST; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeCAST: CFString = "56"
/// `kSecAttrKeyType` value: ECDSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeECDSA: CFString = "73"
/// `kSecAttrKeyType` value: EC; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// `kSecAttrKeyType` value: ECSECPrimeRandom; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// `kSecAttrPRF` value: HMAC-SHA1; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA1: CFString = "hsha1"
/// `kSecAttrPRF` value: HMAC-SHA224; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA224: CFString = "hsha224"
/// `kSecAttrPRF` value: HMAC-SHA256; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA256: CFString = "hsha256"
/// `kSecAttrPRF` value: HMAC-SHA384; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA384: CFString = "hsha384"
/// `kSecAttrPRF` value: HMAC-SHA512; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA512: CFString = "hsha512"

// MARK: Token IDs and predefined access groups

/// `kSecAttrTokenID` value: the Secure Enclave, which Linux has none of (`errSecUnimplemented`).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// Apple's access group of items on external tokens; declared so code compiles.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"
