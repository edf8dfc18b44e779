/// The item path that each recent native search found when it found exactly one, so that the
/// next identical search can read that item in the same round trip
/// (`LibsecretSession.searchAhead`).
///
/// It holds object paths only, never a secret nor an attribute value beyond the search's own
/// key. A path is only a guess: the search sent with the read decides whether it is used, so a
/// stale entry costs a request, never a wrong answer. Paths belong to one provider and one
/// collection, so the connection empties this whenever it lets go of either.
@LibsecretActor
final class SearchPathCache {
    /// Enough for the items a program reads over and over; beyond it an arbitrary entry goes.
    static let capacity = 64

    /// By `key(of:)` of the search's attributes. A String key rather than the dictionary itself:
    /// a dictionary keyed by dictionaries costs a process its type's set-up at first use, on the
    /// way from a search's answer to the read that follows it.
    private var paths: [String: String] = [:]

    nonisolated init() {}

    /// The path the search for `attributes` found alone last time, if it did.
    func path(for attributes: [String: String]) -> String? { paths[Self.key(of: attributes)] }

    /// Remembers what the search for `attributes` found: its path when it found exactly one
    /// item, else nothing.
    func record(_ found: [String], for attributes: [String: String]) {
        let key = Self.key(of: attributes)
        guard found.count == 1 else {
            paths[key] = nil
            return
        }
        if paths[key] == nil, paths.count >= Self.capacity { paths.remove(at: paths.startIndex) }
        paths[key] = found[0]
    }

    /// One string per distinct set of attributes: the pairs in name order, each part preceded
    /// by its length in bytes, so that no two sets give the same string.
    private static func key(of attributes: [String: String]) -> String {
        var key = ""
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            key += "\(name.utf8.count):\(name)\(value.utf8.count):\(value)"
        }
        return key
    }

    /// Forgets every search that found the item at `path`: this process deleted it, so a read
    /// of it would be sent for nothing.
    func forget(_ path: String) {
        for (key, found) in paths where found == path { paths[key] = nil }
    }

    func removeAll() { paths.removeAll() }
}
