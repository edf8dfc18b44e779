/// The nearest command to a mistyped one, as git and cargo suggest it: the command whose name
/// is fewest single-letter edits (insert, delete, replace, swap of neighbours) away, if that is
/// at most two and fewer than half the typed word's length, so that a word that merely shares a
/// letter gets no suggestion.
enum CommandSuggestion {
    static func nearest(to typed: String, among names: [String]) -> String? {
        let scored = names.map { (name: $0, distance: editDistance(Array(typed), Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= 2, best.distance * 2 < max(typed.count, 2) else { return nil }
        return best.name
    }

    /// Optimal string alignment distance: Levenshtein's plus the swap of two neighbours.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
