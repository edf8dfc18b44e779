import KeychainCore

/// The names a cached read of one item needs, worked out once per primary key and kept with
/// the session (`StoreSession`): the item's path from the store's top (two keyed BLAKE2b
/// hashes of its primary key) and the name of its secret-cache entry for the file last seen
/// there. Working them out on every get made up about half of a cached get's instructions
/// (docs/performance.md).
///
/// Holds names only, never a secret and never a verdict: every read still inspects the item
/// file and looks its entry up in the kernel keyring, so a file replaced by any writer, in any
/// process, leads to another entry name, exactly as without this memo. Bounded: emptied when
/// full. Thread-safe.
final class SecretCacheRoutes: Sendable {
    private struct Route: Sendable {
        let path: String
        let entryNamePrefix: String
        /// The identity of the file last seen at `path`, and the entry name made from it.
        var lastSeen: (identity: FileIdentity, entry: String)?
    }

    private let routes = Locked<[PrimaryKey: Route]>([:])
    /// Primary keys remembered per session: enough for a program's working set of items, small
    /// enough that the memo stays a few kilobytes.
    static let capacity = 64

    /// The name of the secret-cache entry that would hold the secret of the item with `key` as
    /// its file is now, or nil when there is no regular file at its place (the caller then reads
    /// the files as usual).
    func entryName(for key: PrimaryKey, in files: ItemFiles) -> String? {
        let route = routes.withLock { $0[key] } ?? Self.route(for: key, in: files)
        guard let identity = files.identity(atPath: route.path) else { return nil }
        if let lastSeen = route.lastSeen, lastSeen.identity == identity { return lastSeen.entry }
        let entry = route.entryNamePrefix + identity.text
        var updated = route
        updated.lastSeen = (identity, entry)
        routes.withLock { routes in
            if routes.count >= Self.capacity, routes[key] == nil { routes.removeAll(keepingCapacity: true) }
            routes[key] = updated
        }
        return entry
    }

    private static func route(for key: PrimaryKey, in files: ItemFiles) -> Route {
        let location = files.keys.location(of: key)
        return Route(path: ItemFiles.path(of: location), entryNamePrefix: files.secretCache.entryNamePrefix(location))
    }
}
