// The values Apple defines for attributes, with Apple's strings (SecItemConstants.c).
//
// `nonisolated(unsafe)`: NSString is not Sendable on Linux, but these are immutable literals
// that nothing mutates, so sharing them across threads is safe and Swift 6 users get no warning.

// MARK: kSecAttrAccessible

/// `kSecAttrAccessible` value: readable while the device is unlocked on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = ConstantString(string: "ak")
/// `kSecAttrAccessible` value: readable after the first unlock until restart on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = ConstantString(string: "ck")
/// Deprecated by Apple ("Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = ConstantString(string: "dk")
/// `kSecAttrAccessible` value: readable while unlocked, only with a passcode set, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = ConstantString(string: "akpu")
/// `kSecAttrAccessible` value: readable while unlocked, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = ConstantString(string: "aku")
/// `kSecAttrAccessible` value: readable after the first unlock, never migrated on Apple platforms; on Linux stored and matched, the backend's protection deciding readability.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = ConstantString(string: "cku")
/// Deprecated by Apple ("Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"); left unmarked here so that code which must still
/// handle it builds without warnings.
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = ConstantString(string: "dku")

// MARK: kSecAttrSynchronizable

/// In a query: match synchronizable and non-synchronizable items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = ConstantString(string: "syna")

// MARK: kSecAttrProtocol

/// `kSecAttrProtocol` value: FTP.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = ConstantString(string: "ftp ")
/// `kSecAttrProtocol` value: an FTP account.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = ConstantString(string: "ftpa")
/// `kSecAttrProtocol` value: HTTP.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = ConstantString(string: "http")
/// `kSecAttrProtocol` value: IRC.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = ConstantString(string: "irc ")
/// `kSecAttrProtocol` value: NNTP.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = ConstantString(string: "nntp")
/// `kSecAttrProtocol` value: POP3.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = ConstantString(string: "pop3")
/// `kSecAttrProtocol` value: SMTP.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = ConstantString(string: "smtp")
/// `kSecAttrProtocol` value: SOCKS.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = ConstantString(string: "sox ")
/// `kSecAttrProtocol` value: IMAP.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = ConstantString(string: "imap")
/// `kSecAttrProtocol` value: LDAP.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = ConstantString(string: "ldap")
/// `kSecAttrProtocol` value: AppleTalk.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = ConstantString(string: "atlk")
/// `kSecAttrProtocol` value: AFP.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = ConstantString(string: "afp ")
/// `kSecAttrProtocol` value: Telnet.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = ConstantString(string: "teln")
/// `kSecAttrProtocol` value: SSH.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = ConstantString(string: "ssh ")
/// `kSecAttrProtocol` value: FTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = ConstantString(string: "ftps")
/// `kSecAttrProtocol` value: HTTPS.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = ConstantString(string: "htps")
/// `kSecAttrProtocol` value: an HTTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = ConstantString(string: "htpx")
/// `kSecAttrProtocol` value: an HTTPS proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = ConstantString(string: "htsx")
/// `kSecAttrProtocol` value: an FTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = ConstantString(string: "ftpx")
/// `kSecAttrProtocol` value: SMB.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = ConstantString(string: "smb ")
/// `kSecAttrProtocol` value: RTSP.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = ConstantString(string: "rtsp")
/// `kSecAttrProtocol` value: an RTSP proxy.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = ConstantString(string: "rtsx")
/// `kSecAttrProtocol` value: DAAP.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = ConstantString(string: "daap")
/// `kSecAttrProtocol` value: EPPC (remote Apple events).
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = ConstantString(string: "eppc")
/// `kSecAttrProtocol` value: IPP.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = ConstantString(string: "ipp ")
/// `kSecAttrProtocol` value: NNTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = ConstantString(string: "ntps")
/// `kSecAttrProtocol` value: LDAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = ConstantString(string: "ldps")
/// `kSecAttrProtocol` value: Telnet over TLS.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = ConstantString(string: "tels")
/// `kSecAttrProtocol` value: IMAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = ConstantString(string: "imps")
/// `kSecAttrProtocol` value: IRC over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = ConstantString(string: "ircs")
/// `kSecAttrProtocol` value: POP3 over TLS.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = ConstantString(string: "pops")

// MARK: kSecAttrAuthenticationType

/// `kSecAttrAuthenticationType` value: Windows NTLM.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = ConstantString(string: "ntlm")
/// `kSecAttrAuthenticationType` value: Microsoft Network default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = ConstantString(string: "msna")
/// `kSecAttrAuthenticationType` value: Distributed Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = ConstantString(string: "dpaa")
/// `kSecAttrAuthenticationType` value: Remote Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = ConstantString(string: "rpaa")
/// `kSecAttrAuthenticationType` value: HTTP Basic.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = ConstantString(string: "http")
/// `kSecAttrAuthenticationType` value: HTTP Digest.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = ConstantString(string: "httd")
/// `kSecAttrAuthenticationType` value: an HTML form.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = ConstantString(string: "form")
/// `kSecAttrAuthenticationType` value: the default scheme.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = ConstantString(string: "dflt")

// MARK: Key classes and types (declared so code compiles; keys are not stored)

/// `kSecAttrKeyClass` value: a public key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = ConstantString(string: "0")
/// `kSecAttrKeyClass` value: a private key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = ConstantString(string: "1")
/// `kSecAttrKeyClass` value: a symmetric key; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = ConstantString(string: "2")
/// `kSecAttrKeyType` value: RSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = ConstantString(string: "42")
/// `kSecAttrKeyType` value: DSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeDSA: CFString = ConstantString(string: "43")
/// `kSecAttrKeyType` value: AES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeAES: CFString = ConstantString(string: "2147483649")
/// `kSecAttrKeyType` value: DES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeDES: CFString = ConstantString(string: "14")
/// `kSecAttrKeyType` value: 3DES; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyType3DES: CFString = ConstantString(string: "17")
/// `kSecAttrKeyType` value: RC4; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRC4: CFString = ConstantString(string: "25")
/// `kSecAttrKeyType` value: RC2; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeRC2: CFString = ConstantString(string: "23")
/// `kSecAttrKeyType` value: CAST; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeCAST: CFString = ConstantString(string: "56")
/// `kSecAttrKeyType` value: ECDSA; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeECDSA: CFString = ConstantString(string: "73")
/// `kSecAttrKeyType` value: EC; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = ConstantString(string: "73")
/// `kSecAttrKeyType` value: ECSECPrimeRandom; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = ConstantString(string: "73")
/// `kSecAttrPRF` value: HMAC-SHA1; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA1: CFString = ConstantString(string: "hsha1")
/// `kSecAttrPRF` value: HMAC-SHA224; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA224: CFString = ConstantString(string: "hsha224")
/// `kSecAttrPRF` value: HMAC-SHA256; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA256: CFString = ConstantString(string: "hsha256")
/// `kSecAttrPRF` value: HMAC-SHA384; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA384: CFString = ConstantString(string: "hsha384")
/// `kSecAttrPRF` value: HMAC-SHA512; declared so code compiles (keys are not stored on Linux).
nonisolated(unsafe) public let kSecAttrPRFHmacAlgSHA512: CFString = ConstantString(string: "hsha512")

// MARK: Token IDs and predefined access groups

/// `kSecAttrTokenID` value: the Secure Enclave, which Linux has none of (`errSecUnimplemented`).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = ConstantString(string: "com.apple.setoken")
/// Apple's access group of items on external tokens; declared so code compiles.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = ConstantString(string: "com.apple.token")
