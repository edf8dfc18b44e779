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

    private var paths: [[String: String]: String] = [:]

    nonisolated init() {}

    /// The path the search for `attributes` found alone last time, if it did.
    func path(for attributes: [String: String]) -> String? { paths[attributes] }

    /// Remembers what the search for `attributes` found: its path when it found exactly one
    /// item, else nothing.
    func record(_ found: [String], for attributes: [String: String]) {
        guard found.count == 1 else {
            paths[attributes] = nil
            return
        }
        if paths[attributes] == nil, paths.count >= Self.capacity { paths.remove(at: paths.startIndex) }
        paths[attributes] = found[0]
    }

    /// Forgets every search that found the item at `path`: this process deleted it, so a read
    /// of it would be sent for nothing.
    func forget(_ path: String) {
        for (attributes, found) in paths where found == path { paths[attributes] = nil }
    }

    func removeAll() { paths.removeAll() }
}
