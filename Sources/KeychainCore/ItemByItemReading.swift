/// A backend that can answer a search item by item, naming each matching item it cannot read
/// instead of failing the whole search: what a move uses to carry the other items when one
/// is damaged (`SourceItems`).
///
/// Contract: `readable` is what `search(query)` would return if the unreadable items were not
/// there; each of `unreadable` is an entry the store holds, named by its primary key when it
/// has one that can be trusted, else by where it lies (it may or may not match the query's
/// other constraints, which cannot be checked without reading it), with an error that says why
/// and holds no secret. An error about the store as a whole is thrown.
public protocol ItemByItemReading: KeychainBackend {
    func searchItemByItem(_ query: ItemQuery) throws -> (readable: [KeychainItem], unreadable: [UnreadableEntry])
}
