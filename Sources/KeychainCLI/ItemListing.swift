import Foundation
import KeychainCore
import LinuxKeychain

/// `keychain list`: names, labels and dates of items, never their secrets.
struct ItemListing {
    struct Row: Codable {
        let service: String
        let account: String
        /// The item's access group; "" for a shared item.
        let group: String
        let label: String?
        let modified: String?
    }

    let rows: [Row]

    init(items: [KeychainItem]) {
        let formatter = ISO8601DateFormatter()
        rows = items.map { item in
            let attributes = item.attributes
            var modified: String?
            if case .date(let date)? = attributes[.modificationDate] { modified = formatter.string(from: date) }
            return Row(service: attributes.string(.service) ?? "", account: attributes.string(.account) ?? "",
                       group: attributes.string(.accessGroup) ?? "", label: attributes.string(.label), modified: modified)
        }.sorted { ($0.service, $0.account, $0.group) < ($1.service, $1.account, $1.group) }
    }

    func print(json: Bool) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = (try? encoder.encode(rows)) ?? Data("[]".utf8)
            Terminal.write(String(decoding: data, as: UTF8.self) + "\n")
            return
        }
        guard !rows.isEmpty else { return }
        let header = Row(service: "SERVICE", account: "ACCOUNT", group: "GROUP", label: "LABEL", modified: "MODIFIED")
        let table = [header] + rows
        let serviceWidth = table.map(\.service.count).max()!
        let accountWidth = table.map(\.account.count).max()!
        let labelWidth = table.map { ($0.label ?? "-").count }.max()!
        let groupWidth = table.map { Self.shown($0.group).count }.max()!
        let lines = table.map { row in
            [row.service.padding(toLength: serviceWidth, withPad: " ", startingAt: 0),
             row.account.padding(toLength: accountWidth, withPad: " ", startingAt: 0),
             Self.shown(row.group).padding(toLength: groupWidth, withPad: " ", startingAt: 0),
             (row.label ?? "-").padding(toLength: labelWidth, withPad: " ", startingAt: 0),
             row.modified ?? "-"].joined(separator: "  ")
        }
        Terminal.write(lines.joined(separator: "\n") + "\n")
    }

    /// A group as the table shows it: shared items have none.
    private static func shown(_ group: String) -> String { group.isEmpty ? "(shared)" : group }
}
