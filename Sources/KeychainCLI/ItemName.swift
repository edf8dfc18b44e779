import KeychainCore
import KeychainEntryPoints
import KeychainBuiltInBackends

/// The item that `set`, `get` and `delete` name: a generic password by SERVICE ACCOUNT, or
/// with `--internet` (or any of `--protocol`, `--port`, `--path`) an internet password by
/// SERVER ACCOUNT and those options; or that `run` names by a `SecretReference`.
struct ItemName {
    /// How the person named the item, so that a hint names the other class the same way.
    enum Spelling {
        /// Operands and options: `--protocol https --port 8443`.
        case options
        /// A reference, as `run` takes it: `keychain+https://alice@git.example.com:8443`.
        case reference
    }

    let itemClass: ItemClass
    /// The attributes given on the command line, and only those.
    let attributes: ItemAttributes
    let spelling: Spelling

    /// A generic password by service and account, as `run --env` names it. Its hints spell
    /// other items as references, which `run --env-ref` takes.
    init(service: String, account: String, group: String?) {
        self.init(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]),
                  group: group, spelling: .reference)
    }

    /// An item of `itemClass` with exactly `attributes`, plus the access group when given.
    init(itemClass: ItemClass, attributes: ItemAttributes, group: String?, spelling: Spelling) {
        self.itemClass = itemClass
        var attributes = attributes
        if let group { attributes[.accessGroup] = .string(group) }
        self.attributes = attributes
        self.spelling = spelling
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
        spelling = .options
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
            named.message = "no item for \(readableName)" + (otherClassHint(in: operations).map { "; \($0)" } ?? "")
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
            ? (spelling == .options ? "add --protocol, --port or --path to pick one" : "give the protocol, port or path in the reference to pick one")
            : "they differ in their synchronizable flag ('linux-keychain list --json' shows them)"
        throw KeychainError(errSecParam, "\(found.count) items match \(readableName); \(hint)")
    }

    /// For a name that found nothing: the items of the other class with the same name (the
    /// service as a server, or the server as a service, and the same account and group), and
    /// how to name them, since people mix the classes up. Nil when there are none, or when the
    /// store cannot say (the not-found stands then).
    func otherClassHint(in operations: KeychainOperations) -> String? {
        let (first, otherFirst): (AttributeKey, AttributeKey) = itemClass == .genericPassword ? (.service, .server) : (.server, .service)
        var constraints = ItemAttributes()
        constraints[otherFirst] = attributes[first]
        for key in [AttributeKey.account, .accessGroup] { constraints[key] = attributes[key] }
        let other = ItemName(itemClass: itemClass == .genericPassword ? .internetPassword : .genericPassword,
                             attributes: constraints, group: nil, spelling: spelling)
        guard let found = try? operations.search(other.query(.attributes)), !found.isEmpty else { return nil }
        let isGeneric = other.itemClass == .genericPassword
        let (kind, firstName) = isGeneric ? ("generic password", "service") : ("internet password", "server")
        let exists = found.count == 1 ? "\(isGeneric ? "a" : "an") \(kind) of that \(firstName) and account exists"
                                      : "\(found.count) \(kind)s of that \(firstName) and account exist"
        var ways: [String] = []
        for item in found where ways.count < 3 {
            let way = other.spelled(item)
            if !ways.contains(way) { ways.append(way) }
        }
        switch (spelling, other.itemClass) {
        case (.options, .genericPassword): return "\(exists): leave out --internet, --protocol, --port and --path"
        case (.options, _): return "\(exists): name \(found.count == 1 ? "it" : "one") with \(ways.joined(separator: ", or with "))"
        case (.reference, _): return "\(exists): \(ways.joined(separator: " or "))"
        }
    }

    /// How to name `item`, an item of this name's class, the way the person named the other.
    private func spelled(_ item: KeychainItem) -> String {
        let account = item.attributes.string(.account) ?? ""
        if itemClass == .genericPassword { return "keychain:\(item.attributes.string(.service) ?? "")/\(account)" }
        let location = InternetLocation(item.attributes)
        return spelling == .options ? location.options.joined(separator: " ") : location.reference(account: account)
    }

    /// The names given, for messages; never a secret.
    var readableName: String {
        let shown = AttributeName.all.compactMap { name in name.text(in: attributes).map { "\(name.name) '\($0)'" } }
        return shown.joined(separator: " and ")
    }
}
