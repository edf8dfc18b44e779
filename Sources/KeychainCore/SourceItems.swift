/// What a move (or `linux-keychain export`) read from its source: every item it could read,
/// with its secret, and every entry it found but could not read, with why.
///
/// One item that cannot be read (a revoked kernel key, a secret its store refuses to hand out)
/// must not keep the others where they are, nor vanish: `read(from:scope:)` reads them all in
/// one search per class and group, as a move always did (item by item, `ItemByItemReading`,
/// where the backend can), and only when such a search fails does it list that search's items
/// by name and read each on its own, so the failure is pinned to its item.
public struct SourceItems: Sendable {
    /// The items read, each with its secret, in the order the searches returned them.
    public internal(set) var readable: [KeychainItem] = []
    /// The entries that could not be read, each once, with the error (which holds no secret).
    public internal(set) var unreadable: [UnreadableEntry] = []

    /// Every item `scope` sees in `backend`, of both classes, synchronizable or not, other
    /// tools' items included. Throws only when the store itself cannot be read (locked, not
    /// available, or not even listable by name); an item that cannot be read is `unreadable`.
    public static func read(from backend: any KeychainBackend, scope: AccessScope) throws -> SourceItems {
        var found = SourceItems()
        for itemClass in ItemClass.allCases {
            let query = ItemQuery(itemClass: itemClass, includeSecrets: true, matchesAnySynchronizable: true,
                                  includesOtherProgramsItems: true)
            try scope.forEachSearch(query) { scoped in
                do {
                    if let itemByItem = backend as? any ItemByItemReading {
                        try found.add(itemByItem.searchItemByItem(scoped), from: backend)
                    } else {
                        found.readable += try backend.search(scoped)
                    }
                } catch let failure as KeychainError where !concernsWholeStore(failure) {
                    try found.readOneByOne(scoped, from: backend, after: failure)
                }
                return true
            }
        }
        return found
    }

    /// Statuses that say the store as a whole cannot be read now (locked, gone, refused): item
    /// by item would fail the same way for every item, so they end the read instead.
    private static func concernsWholeStore(_ error: KeychainError) -> Bool {
        [errSecInteractionNotAllowed, errSecNotAvailable, errSecAuthFailed, errSecNoSuchKeychain, errSecUserCanceled]
            .contains(error.status)
    }

    /// One search's answer, item by item: an entry that each search of a move meets (a store that
    /// cannot read an entry cannot tell its class or group either) is listed once.
    private mutating func add(_ found: (readable: [KeychainItem], unreadable: [UnreadableEntry]), from backend: any KeychainBackend) {
        readable += found.readable
        for entry in found.unreadable where !unreadable.contains(where: { $0.key == entry.key && $0.place == entry.place }) {
            unreadable.append(entry.attributed(to: backend.name))
        }
    }

    /// `query`'s items listed without their secrets, then each read by its primary key; when
    /// even the listing fails, `failure` (the whole search's error) is thrown.
    private mutating func readOneByOne(_ query: ItemQuery, from backend: any KeychainBackend, after failure: KeychainError) throws {
        var listing = query
        listing.includeSecrets = false
        let named: [KeychainItem]
        do {
            named = try backend.search(listing)
        } catch {
            throw failure
        }
        var seen = Set<PrimaryKey>()
        for item in named where seen.insert(item.primaryKey).inserted {
            let one = ItemQuery(itemClass: item.itemClass, constraints: item.primaryKey.attributes, includeSecrets: true,
                                includesOtherProgramsItems: true)
            do {
                readable += try backend.search(one)
            } catch let error as KeychainError {
                unreadable.append(UnreadableEntry(key: item.primaryKey, error: error.attributed(to: backend.name)))
            } catch {
                unreadable.append(UnreadableEntry(key: item.primaryKey, error: KeychainError(errSecInternalComponent, "Unexpected error: \(type(of: error)).", backend: backend.name)))
            }
        }
    }
}
