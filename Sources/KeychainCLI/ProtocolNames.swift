import FoundationEssentials
import Glibc

/// The protocols of internet passwords by the names people type (`https`), and Apple's
/// four-character codes (`htps`) that the store keeps, so items match what Apple-style code
/// wrote with `kSecAttrProtocolHTTPS`.
enum ProtocolNames {
    static let codesByName: KeyValuePairs<String, String> = [
        "http": "http", "https": "htps", "ftp": "ftp ", "ftps": "ftps", "ssh": "ssh ", "sftp": "ssh ",
        "imap": "imap", "imaps": "imps", "pop3": "pop3", "pop3s": "pops", "smtp": "smtp", "ldap": "ldap",
        "ldaps": "ldps", "smb": "smb ", "irc": "irc ", "ircs": "ircs", "telnet": "teln", "telnets": "tels",
        "nntp": "nntp", "nntps": "ntps", "socks": "sox ", "afp": "afp ", "ipp": "ipp ", "rtsp": "rtsp",
        "http-proxy": "htpx", "https-proxy": "htsx", "ftp-proxy": "ftpx",
    ]

    /// The names `--protocol` completes to.
    static var names: [String] { codesByName.map(\.key) }

    /// The stored code for `text`: a known name, or a code given as is (four characters); a
    /// usage error pointing at the help of `command` when it is neither.
    static func code(for text: String, command: String?) throws -> String {
        let lowered = text.lowercased()
        if let code = codesByName.first(where: { $0.key == lowered })?.value { return code }
        if codesByName.contains(where: { $0.value == text }) || text.count == 4 { return text }
        throw UsageError("unknown protocol '\(text)'; use a name such as https, ssh or imaps, or a four-character code", command: command)
    }

    /// The name to show for a stored code: the first name that maps to it, else the code.
    static func name(for code: String) -> String {
        codesByName.first(where: { $0.value == code })?.key ?? code.trimmingWhitespace()
    }
}
