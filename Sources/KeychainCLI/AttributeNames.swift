import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// The attribute names the CLI uses for `search NAME VALUE`, for `list --json` fields and in
/// the help: lower-case words rather than Apple's four-letter codes.
struct AttributeName: Sendable {
    let name: String
    let key: AttributeKey
    let summary: String

    /// Every attribute a person can search by or see in `list --json`.
    static let all: [AttributeName] = [
        AttributeName(name: "service", key: .service, summary: "generic password's service"),
        AttributeName(name: "account", key: .account, summary: "account (user name)"),
        AttributeName(name: "server", key: .server, summary: "internet password's server"),
        AttributeName(name: "protocol", key: .protocol, summary: "internet password's protocol (https, ssh, ...)"),
        AttributeName(name: "port", key: .port, summary: "internet password's port"),
        AttributeName(name: "path", key: .path, summary: "internet password's path"),
        AttributeName(name: "security-domain", key: .securityDomain, summary: "internet password's security domain"),
        AttributeName(name: "label", key: .label, summary: "label"),
        AttributeName(name: "comment", key: .comment, summary: "comment"),
        AttributeName(name: "description", key: .itemDescription, summary: "kind of item, e.g. 'API token'"),
        AttributeName(name: "group", key: .accessGroup, summary: "access group of the program that wrote it"),
    ]

    static func named(_ name: String) -> AttributeName? { all.first { $0.name == name } }

    /// `text` as the value `key` holds; a usage error of `command` when it cannot be one.
    func value(parsing text: String, command: String) throws -> AttributeValue {
        switch key {
        case .protocol: return .string(try ProtocolNames.code(for: text, command: command))
        case .port: return .integer(try Self.port(text, command: command))
        default: return .string(text)
        }
    }

    /// The value as a person reads it, or nil when the item does not have it. Empty strings and
    /// port 0 are how a store spells "not given", so they count as absent too.
    func text(in attributes: ItemAttributes) -> String? {
        switch attributes[key] {
        case .string(let text)? where text.isEmpty: return nil
        case .string(let text)? where key == .protocol: return ProtocolNames.name(for: text)
        case .string(let text)?: return text
        case .integer(let number)? where number != 0 || key != .port: return String(number)
        default: return nil
        }
    }

    /// `text` as a port; a usage error pointing at the help of `command` when it is none.
    static func port(_ text: String, command: String?) throws -> Int64 {
        guard let port = Int64(text), (0...65535).contains(port) else {
            throw UsageError("'\(text)' is not a port number (0 to 65535)", command: command)
        }
        return port
    }
}
