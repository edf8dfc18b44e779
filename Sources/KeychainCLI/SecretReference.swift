import KeychainCore
import KeychainBuiltInBackends

/// The text that names an item in `run --env-ref VAR REFERENCE` and in an env file's
/// `VAR=REFERENCE` lines:
///
/// - `keychain:SERVICE/ACCOUNT`: a generic password. The service runs to the last `/`, so it
///   may hold slashes (`keychain:kv:myapp/db/password`); the account may not.
/// - `keychain+PROTOCOL://ACCOUNT@SERVER[:PORT][/PATH]`: an internet password, with a protocol
///   as `--protocol` takes it (`https`, `ssh`, ...), or `internet` for any protocol. The
///   account runs to the last `@`, so it may hold one (`bob@example.org@mail.example.org`);
///   the path may not. Port and path narrow the match as `--port` and `--path` do.
///
/// Nothing is unescaped: what is written is the name. A parse failure says what is wrong
/// without repeating the text, which may be a secret pasted by mistake.
enum SecretReference {
    static let genericPrefix = "keychain:"
    static let internetPrefix = "keychain+"
    /// The protocol word that leaves the protocol open: `keychain+internet://...`.
    static let anyProtocol = "internet"

    /// The two forms, for messages.
    static let forms = "keychain:SERVICE/ACCOUNT or keychain+PROTOCOL://ACCOUNT@SERVER[:PORT][/PATH]"

    /// What is wrong with a reference, in words that never quote it.
    struct Problem: Error {
        let reason: String
    }

    /// Whether `text` is meant as a reference (it has one of the prefixes), right or wrong.
    static func looksLikeOne(_ text: String) -> Bool {
        text.hasPrefix(genericPrefix) || text.hasPrefix(internetPrefix)
    }

    /// The item `text` names, within `group` when one is given.
    static func itemName(_ text: String, group: String?) throws(Problem) -> ItemName {
        if text.hasPrefix(genericPrefix) { return try generic(String(text.dropFirst(genericPrefix.count)), group: group) }
        if text.hasPrefix(internetPrefix) { return try internet(String(text.dropFirst(internetPrefix.count)), group: group) }
        throw Problem(reason: "is not a keychain reference (\(forms))")
    }

    private static func generic(_ rest: String, group: String?) throws(Problem) -> ItemName {
        guard let slash = rest.lastIndex(of: "/") else {
            throw Problem(reason: "has no '/' between service and account (keychain:SERVICE/ACCOUNT)")
        }
        let service = String(rest[..<slash])
        let account = String(rest[rest.index(after: slash)...])
        guard !service.isEmpty, !account.isEmpty else {
            throw Problem(reason: "needs both a service and an account (keychain:SERVICE/ACCOUNT)")
        }
        return ItemName(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]),
                        group: group, spelling: .reference)
    }

    private static func internet(_ rest: String, group: String?) throws(Problem) -> ItemName {
        guard let separator = rest.firstRange(of: "://") else {
            throw Problem(reason: "has no '://' after the protocol (keychain+PROTOCOL://ACCOUNT@SERVER)")
        }
        let protocolWord = String(rest[..<separator.lowerBound])
        let afterScheme = rest[separator.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@") else {
            throw Problem(reason: "has no account (keychain+PROTOCOL://ACCOUNT@SERVER)")
        }
        let account = String(afterScheme[..<at])
        var location = afterScheme[afterScheme.index(after: at)...]
        var attributes = ItemAttributes([.account: .string(account)])
        if protocolWord != anyProtocol {
            do {
                attributes[.protocol] = .string(try ProtocolNames.code(for: protocolWord, command: nil))
            } catch {
                throw Problem(reason: "names an unknown protocol; use a name such as https, ssh or imaps, '\(anyProtocol)' for any, or a four-character code")
            }
        }
        if let slash = location.firstIndex(of: "/") {
            attributes[.path] = .string(String(location[slash...]))
            location = location[..<slash]
        }
        if let colon = location.firstIndex(of: ":") {
            let digits = location[location.index(after: colon)...]
            guard let port = Int64(digits), (1...65535).contains(port) else {
                throw Problem(reason: "has a port that is not a number from 1 to 65535")
            }
            attributes[.port] = .integer(port)
            location = location[..<colon]
        }
        guard !account.isEmpty, !location.isEmpty else {
            throw Problem(reason: "needs both an account and a server (keychain+PROTOCOL://ACCOUNT@SERVER)")
        }
        attributes[.server] = .string(String(location))
        return ItemName(itemClass: .internetPassword, attributes: attributes, group: group, spelling: .reference)
    }
}
