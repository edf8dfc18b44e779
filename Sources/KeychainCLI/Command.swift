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
        case "passwd":
            guard operands.isEmpty else { throw UsageError("passwd takes no operands") }
            self = .changePassphrase
        default:
            throw UsageError("unknown command '\(verb)'")
        }
    }

    func run(backendName: String?) throws {
        switch self {
        case .backends:
            BackendReport.print(selection: backendName)
        case .changePassphrase:
            try PassphraseChange.run(backendName: backendName)
        case .set(let service, let account, let addOnly):
            let operations = try Self.operations(backendName)
            let secret = try SecretInput.read(prompt: "Secret for \(account) at \(service): ")
            let key = Self.primaryKey(service, account)
            if addOnly {
                try operations.add(KeychainItem(itemClass: .genericPassword, attributes: key.attributes, secret: secret))
            } else {
                try operations.set(secret, for: key)
            }
        case .get(let service, let account):
            let operations = try Self.operations(backendName)
            let query = ItemQuery(primaryKey: Self.primaryKey(service, account), includeSecrets: true)
            let found = try Self.naming(service, account) { try operations.search(query) }
            guard let secret = found.first?.secret else { throw KeychainError.notFound() }
            try Terminal.writeSecret(secret)
        case .delete(let service, let account):
            let operations = try Self.operations(backendName)
            try Self.naming(service, account) {
                try operations.delete(ItemQuery(primaryKey: Self.primaryKey(service, account)))
            }
        case .list(let service, let json):
            var constraints = ItemAttributes()
            if let service { constraints[.service] = .string(service) }
            let query = ItemQuery(itemClass: .genericPassword, constraints: constraints, limit: .all,
                                  matchesAnySynchronizable: true)
            let items: [KeychainItem]
            do {
                items = try Self.operations(backendName).search(query)
            } catch KeychainError.itemNotFound {
                items = []
            }
            ItemListing(items: items).print(json: json)
        }
    }

    /// The item a (service, account) pair names, as Python keyring and secret-tool name it.
    private static func primaryKey(_ service: String, _ account: String) -> PrimaryKey {
        PrimaryKey(itemClass: .genericPassword,
                   attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))
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

    private static func operations(_ backendName: String?) throws -> KeychainOperations {
        if let backendName { return try KeychainOperations.named(backendName) }
        return try KeychainOperations.current()
    }
}
