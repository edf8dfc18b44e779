import FoundationEssentials
import Glibc
import KeychainCore
import KeychainEntryPoints
import KeychainBuiltInBackends

/// What `list` and `search` print: names, labels and dates of items, never their secrets.
///
/// Both classes appear, generic passwords first, each in the store's order (creation order).
/// The table's columns and the JSON fields are declared once below; a new column is one line.
struct ItemListing {
    /// One column of the table.
    struct Column: Sendable {
        let header: String
        let value: @Sendable (KeychainItem) -> String?
    }

    static let columns: [Column] = [
        Column(header: "CLASS") { $0.itemClass.displayName },
        Column(header: "SERVICE/SERVER/TAG") { item in
            switch item.itemClass {
            case .genericPassword: return item.attributes.string(.service)
            case .internetPassword: return InternetLocation(item.attributes).text
            case .key: return KeyDescription(item.attributes).tag
            // A certificate's label is its subject summary, in the LABEL column.
            case .certificate: return nil
            }
        },
        Column(header: "ACCOUNT/KEY") { item in
            switch item.itemClass {
            case .genericPassword, .internetPassword: return item.attributes.string(.account)
            case .key: return KeyDescription(item.attributes).kind
            case .certificate: return KeyDescription(item.attributes).serial
            }
        },
        Column(header: "GROUP") { item in
            let group = item.attributes.string(.accessGroup) ?? ""
            return group.isEmpty ? "(shared)" : group
        },
        Column(header: "LABEL") { $0.attributes.string(.label) },
        Column(header: "MODIFIED") { date(.modificationDate, in: $0.attributes) },
    ]

    let items: [KeychainItem]

    /// Every item of either class matching `constraints` (an attribute that one class lacks,
    /// such as `service`, leaves out the other class).
    static func search(_ constraints: [ItemClass: ItemAttributes], in operations: KeychainOperations) throws -> ItemListing {
        var items: [KeychainItem] = []
        for itemClass in ItemClass.allCases {
            guard let classConstraints = constraints[itemClass] else { continue }
            let query = ItemQuery(itemClass: itemClass, constraints: classConstraints, limit: .all,
                                  matchesAnySynchronizable: true, includesOtherProgramsItems: true)
            do {
                items += try operations.search(query)
            } catch KeychainError.itemNotFound {
                continue
            }
        }
        return ItemListing(items: items)
    }

    func print(json: Bool) {
        if json {
            Terminal.write(jsonText() + "\n")
            return
        }
        guard !items.isEmpty else { return }
        let cells = [Self.columns.map(\.header)] + items.map { item in Self.columns.map { $0.value(item) ?? "-" } }
        let widths = Self.columns.indices.map { column in cells.map { $0[column].count }.max() ?? 0 }
        let lines = cells.map { row in
            zip(row, widths).enumerated().map { index, cell in
                index == row.count - 1 ? cell.0 : cell.0.padded(to: cell.1)
            }.joined(separator: "  ")
        }
        Terminal.write(lines.joined(separator: "\n") + "\n")
    }

    /// An array of `ItemJSON` objects, one per item.
    private func jsonText() -> String {
        JSONValue.array(items.map(ItemJSON.object(for:))).prettyText
    }

    static func date(_ key: AttributeKey, in attributes: ItemAttributes) -> String? {
        guard case .date(let date)? = attributes[key] else { return nil }
        return date.formatted(.iso8601)
    }
}

/// `list [SERVICE]` and `search NAME VALUE...`.
enum ListCommands {
    /// Every item of every class; with SERVICE, those whose service, server or key tag it is.
    static func list(_ parsed: ParsedCommand) throws {
        var constraints: [ItemClass: ItemAttributes] = [:]
        for itemClass in ItemClass.allCases {
            let group = itemClass.nameAttributes.group
            constraints[itemClass] = ItemAttributes(parsed.operands.first.map {
                [group: AttributeValue(nameText: $0, kind: group.valueKind)]
            } ?? [:])
        }
        try ItemListing.search(constraints, in: try BackendChoice.operations(parsed)).print(json: parsed.has(.json))
    }

    static func search(_ parsed: ParsedCommand) throws {
        guard parsed.operands.count % 2 == 0 else {
            throw UsageError("search takes NAME VALUE pairs; '\(parsed.operands.last!)' has no value", command: "search")
        }
        var attributes = ItemAttributes()
        for index in stride(from: 0, to: parsed.operands.count, by: 2) {
            let word = parsed.operands[index]
            guard let name = AttributeName.named(word) else {
                let known = AttributeName.all.map(\.name).joined(separator: ", ")
                throw UsageError("search knows no attribute '\(word)'; use one of \(known)", command: "search")
            }
            attributes[name.key] = try name.value(parsing: parsed.operands[index + 1], command: "search")
        }
        var constraints: [ItemClass: ItemAttributes] = [:]
        for itemClass in ItemClass.allCases {
            // An attribute the class does not have (service on an internet password) rules it out.
            let internetOnly: [AttributeKey] = [.server, .protocol, .port, .path, .securityDomain]
            let absent: [AttributeKey] = switch itemClass {
            case .genericPassword: internetOnly
            case .internetPassword: [.service]
            case .key, .certificate: internetOnly + [.service, .account, .authenticationType, .comment, .itemDescription]
            }
            if attributes.contains(where: { absent.contains($0.key) }) { continue }
            constraints[itemClass] = attributes
        }
        try ItemListing.search(constraints, in: try BackendChoice.operations(parsed)).print(json: parsed.has(.json))
    }
}
