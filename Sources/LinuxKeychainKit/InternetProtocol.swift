/// The protocol of an internet password: Apple's `kSecAttrProtocol` value, a four-character
/// code such as `htps`, so items match what Apple-style code and the `linux-keychain` CLI store.
///
/// A struct rather than an enum, so a code this library does not name still round-trips.
public struct InternetProtocol: RawRepresentable, Hashable, Sendable {
    /// The four-character code, e.g. `"htps"` for HTTPS.
    public let rawValue: String

    /// The protocol with Apple's code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `kSecAttrProtocolHTTP`
    public static let http = InternetProtocol(rawValue: "http")
    /// `kSecAttrProtocolHTTPS`
    public static let https = InternetProtocol(rawValue: "htps")
    /// `kSecAttrProtocolFTP`
    public static let ftp = InternetProtocol(rawValue: "ftp ")
    /// `kSecAttrProtocolFTPS`
    public static let ftps = InternetProtocol(rawValue: "ftps")
    /// `kSecAttrProtocolSSH`
    public static let ssh = InternetProtocol(rawValue: "ssh ")
    /// `kSecAttrProtocolIMAP`
    public static let imap = InternetProtocol(rawValue: "imap")
    /// `kSecAttrProtocolIMAPS`
    public static let imaps = InternetProtocol(rawValue: "imps")
    /// `kSecAttrProtocolPOP3`
    public static let pop3 = InternetProtocol(rawValue: "pop3")
    /// `kSecAttrProtocolPOP3S`
    public static let pop3s = InternetProtocol(rawValue: "pops")
    /// `kSecAttrProtocolSMTP`
    public static let smtp = InternetProtocol(rawValue: "smtp")
    /// `kSecAttrProtocolLDAP`
    public static let ldap = InternetProtocol(rawValue: "ldap")
    /// `kSecAttrProtocolLDAPS`
    public static let ldaps = InternetProtocol(rawValue: "ldps")
    /// `kSecAttrProtocolSMB`
    public static let smb = InternetProtocol(rawValue: "smb ")
}
