import Foundation
import KeychainCore
import LinuxKeychain

/// One subcommand and what it needs.
enum Command {
    case set(service: String, account: String, addOnly: Bool)
    case get(service: String, account: String)
    case delete(service: String, account: String)
    case list(service: String?, json: Bool)
    case backends
    case changePassphrase
    case pin(String?)

    init(verb: String, operands: [String], json: Bool) throws {
        func pair() throws -> (String, String) {
            guard operands.count == 2 else { throw UsageError("\(verb) takes SERVICE ACCOUNT") }
            return (operands[0], operands[1])
        }
        switch verb {
        case "set", "store":
            let (service, account) = try pair()
            self = .set(service: service, account: account, addOnly: false)
        case "add":
            let (service, account) = try pair()
            self = .set(service: service, account: account, addOnly: true)
        case "get", "lookup":
            let (service, account) = try pair()
            self = .get(service: service, account: account)
        case "delete", "del", "clear":
            let (service, account) = try pair()
            self = .delete(service: service, account: account)
        case "list":
            guard operands.count <= 1 else { throw UsageError("list takes at most one SERVICE") }
            self = .list(service: operands.first, json: json)
        case "backends":
            guard operands.isEmpty else { throw UsageError("backends takes no operands") }
            self = .backends
        case "pin":
            guard operands.count == 1 else { throw UsageError("pin takes a backend NAME") }
            self = .pin(operands[0])
        case "unpin":
            guard operands.isEmpty else { throw UsageError("unpin takes no operands") }
            self = .pin(nil)
        case "passwd":
            guard operands.isEmpty else { throw UsageError("passwd takes no operands") }
            self = .changePassphrase
        default:
            throw UsageError("unknown command '\(verb)'")
        }
    }

    func run(backendName: String?, group: String? = nil) throws {
        switch self {
        case .pin(let name):
            try Placement.pin(name)
        case .backends:
            BackendReport.print(selection: backendName)
        case .changePassphrase:
            try PassphraseChange.run(backendName: backendName)
        case .set(let service, let account, let addOnly):
            let operations = try Self.operations(backendName, group: group)
            let secret = try SecretInput.read(prompt: "Secret for \(account) at \(service): ")
            let key = Self.primaryKey(service, account, group: group)
            if addOnly {
                try operations.add(KeychainItem(itemClass: .genericPassword, attributes: key.attributes, secret: secret))
            } else {
                try operations.set(secret, for: key)
            }
        case .get(let service, let account):
            let operations = try Self.operations(backendName, group: group)
            let found = try Self.naming(service, account) {
                let key = try Placement.item(service, account, group: group, in: operations)
                return try operations.search(ItemQuery(primaryKey: key, includeSecrets: true))
            }
            guard let secret = found.first?.secret else { throw KeychainError.notFound() }
            try Terminal.writeSecret(secret)
        case .delete(let service, let account):
            let operations = try Self.operations(backendName, group: group)
            try Self.naming(service, account) {
                try operations.delete(ItemQuery(primaryKey: try Placement.item(service, account, group: group, in: operations)))
            }
        case .list(let service, let json):
            var constraints = ItemAttributes()
            if let service { constraints[.service] = .string(service) }
            let query = ItemQuery(itemClass: .genericPassword, constraints: constraints, limit: .all,
                                  matchesAnySynchronizable: true)
            let items: [KeychainItem]
            do {
                items = try Self.operations(backendName, group: group).search(query)
            } catch KeychainError.itemNotFound {
                items = []
            }
            ItemListing(items: items).print(json: json)
        }
    }

    /// The item a (service, account) pair names, as Python keyring and secret-tool name it:
    /// shared (no access group) unless `--group` names one.
    private static func primaryKey(_ service: String, _ account: String, group: String?) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword,
                   attributes: ItemAttributes([.service: .string(service), .account: .string(account),
                                               .accessGroup: .string(group ?? "")]))
    }

    /// Runs `body`, turning "not found" into one line that names the item.
    @discardableResult
    private static func naming<Result>(_ service: String, _ account: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as KeychainError where error.status == errSecItemNotFound {
            var named = error
            named.message = "no item for service '\(service)' and account '\(account)'"
            throw named
        }
    }

    /// The operator's operations: every access group, or the one `--group` names.
    private static func operations(_ backendName: String?, group: String?) throws -> KeychainOperations {
        let scope = Placement.scope(group: group)
        if let backendName { return try KeychainOperations.named(backendName, scope: scope) }
        return try KeychainOperations.current(scope: scope)
    }
}
