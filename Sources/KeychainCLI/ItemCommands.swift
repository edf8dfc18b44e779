import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// `set`, `add`, `get` and `delete`: one item, named by `ItemName`.
enum ItemCommands {
    /// Stores the secret read from standard input; with `addOnly`, fails if the item exists.
    static func set(_ parsed: ParsedCommand, addOnly: Bool) throws {
        let name = try ItemName(parsed)
        let operations = try BackendChoice.operations(parsed)
        var extra = ItemAttributes()
        if let label = parsed.value(.label) { extra[.label] = .string(label) }
        if let comment = parsed.value(.comment) { extra[.comment] = .string(comment) }
        let secret = try SecretInput.read(prompt: "Secret for \(parsed.operands[1]) at \(parsed.operands[0]): ")
        if secret.withUnsafeBytes(\.isEmpty) && !parsed.has(.allowEmpty) {
            throw KeychainError(errSecParam, "the secret read from standard input is empty, so nothing was stored; pass --allow-empty to store an empty secret")
        }
        if addOnly {
            try operations.add(KeychainItem(itemClass: name.itemClass, attributes: name.attributes.merging(extra), secret: secret))
        } else {
            try operations.set(secret, for: name.primaryKey, attributes: extra)
        }
        if operations.recordsAutomaticChoice, let notice = VolatileStoreNotice.afterRecording(operations.backend) {
            Terminal.note(notice)
        }
    }

    /// Writes the secret's exact bytes to standard output, and a newline after them when that
    /// is a terminal (as `secret-tool lookup` does), so the prompt does not land on the
    /// secret's line; a pipe or a file gets the bytes alone.
    /// With `--json`, the item's attributes and its secret as one `ItemJSON` object.
    static func get(_ parsed: ParsedCommand) throws {
        let name = try ItemName(parsed)
        let json = parsed.has(.itemJSON)
        let item = try name.onlyItem(in: try BackendChoice.operations(parsed), reading: json ? .secretAndAttributes : .secret)
        guard let secret = item.secret else { throw KeychainError.notFound("no item for \(name.readableName)") }
        if json { return try Terminal.writeSecret(try ItemJSON.text(of: item, secret: secret)) }
        try Terminal.writeSecret(secret)
        if isatty(STDOUT_FILENO) == 1 { Terminal.write("\n") }
    }

    /// Removes the item.
    static func delete(_ parsed: ParsedCommand) throws {
        let name = try ItemName(parsed)
        let operations = try BackendChoice.operations(parsed)
        let item = try name.onlyItem(in: operations, reading: .attributes)
        try operations.delete(ItemQuery(primaryKey: item.primaryKey))
    }
}
