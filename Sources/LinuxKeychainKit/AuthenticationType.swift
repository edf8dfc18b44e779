/// How an internet password authenticates: Apple's `kSecAttrAuthenticationType` value, a
/// four-character code such as `form`, so items match what Apple-style code stores.
///
/// A struct rather than an enum, so a code this library does not name still round-trips.
public struct AuthenticationType: RawRepresentable, Hashable, Sendable {
    /// The four-character code, e.g. `"form"` for an HTML form.
    public let rawValue: String

    /// The authentication type with Apple's code `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `kSecAttrAuthenticationTypeNTLM`
    public static let ntlm = AuthenticationType(rawValue: "ntlm")
    /// `kSecAttrAuthenticationTypeMSN`
    public static let msn = AuthenticationType(rawValue: "msna")
    /// `kSecAttrAuthenticationTypeDPA`
    public static let dpa = AuthenticationType(rawValue: "dpaa")
    /// `kSecAttrAuthenticationTypeRPA`
    public static let rpa = AuthenticationType(rawValue: "rpaa")
    /// `kSecAttrAuthenticationTypeHTTPBasic`
    public static let httpBasic = AuthenticationType(rawValue: "http")
    /// `kSecAttrAuthenticationTypeHTTPDigest`
    public static let httpDigest = AuthenticationType(rawValue: "httd")
    /// `kSecAttrAuthenticationTypeHTMLForm`
    public static let htmlForm = AuthenticationType(rawValue: "form")
    /// `kSecAttrAuthenticationTypeDefault`
    public static let `default` = AuthenticationType(rawValue: "dflt")
}
