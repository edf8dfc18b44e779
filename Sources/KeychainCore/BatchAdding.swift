/// A backend that adds many items for about the cost of one: a move into it (`ItemMigration`)
/// hands it the items to copy in batches instead of one `add` each.
public protocol BatchAdding: KeychainBackend {
    /// Adds each of `items` as `add(_:)` would, and returns one result per item, in order: nil
    /// when it was added, else the error `add` would have thrown (`errSecDuplicateItem` for a
    /// key already taken, by the store or by an earlier item of the batch). On return every
    /// added item is as durable as after `add`; an interruption leaves whole items only.
    func add(batch items: [KeychainItem]) -> [KeychainError?]
}
