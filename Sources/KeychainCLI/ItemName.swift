import KeychainCore
import LinuxKeychain

/// The item that `set`, `get` and `delete` name: a generic password by SERVICE ACCOUNT, or
/// with `--internet` (or any of `--protocol`, `--port`, `--path`) an internet password by
/// SERVER ACCOUNT and those options.
struct ItemName {
    let itemClass: ItemClass
    /// The attributes given on the command line, and only those.
    let attributes: ItemAttributes

    /// A generic password by service and account, as `run --env` names it.
    init(service: String, account: String, group: String?) {
        itemClass = .genericPassword
        var attributes = ItemAttributes([.service: .string(service), .account: .string(account)])
        if let group { attributes[.accessGroup] = .string(group) }
        self.attributes = attributes
    }

    /// The item the operands SERVICE ACCOUNT (or SERVER ACCOUNT) and the options name.
    init(_ parsed: ParsedCommand) throws {
        let first = parsed.operands[0]
        let account = parsed.operands[1]
        let isInternet = OptionSpec.internetNaming.contains { parsed.has($0) }
        var attributes = ItemAttributes([.account: .string(account)])
        if isInternet {
            itemClass = .internetPassword
            attributes[.server] = .string(first)
            if let text = parsed.value(.protocol) { attributes[.protocol] = .string(try ProtocolNames.code(for: text, command: parsed.spec.name)) }
            if let text = parsed.value(.port) { attributes[.port] = .integer(try AttributeName.port(text, command: parsed.spec.name)) }
            if let text = parsed.value(.path) { attributes[.path] = .string(text) }
        } else {
            itemClass = .genericPassword
            attributes[.service] = .string(first)
        }
        if let group = parsed.value(.group) { attributes[.accessGroup] = .string(group) }
        self.attributes = attributes
    }

    /// The item a `set` writes: exactly these attributes, the rest of its primary key empty, so
    /// a shared item (no access group) unless `--group` names one.
    var primaryKey: PrimaryKey { PrimaryKey(itemClass: itemClass, attributes: attributes) }

    /// What `onlyItem` reads of the item.
    enum Reading {
        /// Its attributes, for a command that shows or changes them.
        case attributes
        /// Its secret, and of its attributes no more than a backend reads without extra cost
        /// (`ItemQuery.includeAttributes`), the primary key among them, which is all
        /// `onlyItem` needs to choose between items.
        case secret
        /// Its secret and all its attributes (`get --json`).
        case secretAndAttributes
    }

    /// Every stored item with these attributes, whatever else it carries (another tool's
    /// protocol or port, a synchronizable flag).
    func query(_ reading: Reading) -> ItemQuery {
        var query = ItemQuery(itemClass: itemClass, constraints: attributes, limit: .all,
                              includeSecrets: reading != .attributes, matchesAnySynchronizable: true)
        query.includeAttributes = reading != .secret
        return query
    }

    /// The one item with these attributes. Throws "not found" naming it. When several match:
    /// the shared one (no access group) if there is exactly one, as `linux-keychain set` writes it;
    /// otherwise an error saying how to tell them apart (`--group`, or an internet password's
    /// protocol, port or path).
    func onlyItem(in operations: KeychainOperations, reading: Reading) throws -> KeychainItem {
        let found: [KeychainItem]
        do {
            found = try operations.search(query(reading))
        } catch let error as KeychainError where error.status == errSecItemNotFound {
            var named = error
            named.message = "no item for \(readableName)"
            throw named
        }
        if found.count == 1 { return found[0] }
        let shared = found.filter { ($0.attributes.string(.accessGroup) ?? "").isEmpty }
        if attributes[.accessGroup] == nil, shared.count == 1 { return shared[0] }
        let groups = Set(found.map { $0.attributes.string(.accessGroup) ?? "" })
        if groups.count > 1 {
            let names = groups.sorted().map { "'\($0)'" }.joined(separator: ", ")
            throw KeychainError(errSecParam, "\(found.count) items match \(readableName), in the access groups \(names); choose one with --group GROUP")
        }
        let hint = itemClass == .internetPassword
            ? "add --protocol, --port or --path to pick one"
            : "they differ in their synchronizable flag ('linux-keychain list --json' shows them)"
        throw KeychainError(errSecParam, "\(found.count) items match \(readableName); \(hint)")
    }

    /// The names given, for messages; never a secret.
    var readableName: String {
        let shown = AttributeName.all.compactMap { name in name.text(in: attributes).map { "\(name.name) '\($0)'" } }
        return shown.joined(separator: " and ")
    }
}
