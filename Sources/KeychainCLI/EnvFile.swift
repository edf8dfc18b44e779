import FoundationEssentials
import Glibc
import KeychainCore
import KeychainBuiltInBackends

/// `run --env-file FILE`: the variables to set and the items they take their secrets from,
/// one `NAME=REFERENCE` per line (`DB_PASSWORD=keychain:myapp/db`; `SecretReference` has the
/// forms). The rules, documented in docs/cli.md and `linux-keychain help run`:
///
/// - blank lines and lines whose first non-blank character is `#` are skipped; in an unquoted
///   value, a `#` after a blank starts a comment too;
/// - `export NAME=...` is read as `NAME=...`, so the file can also be sourced by a shell;
/// - blanks around NAME, `=` and the value are dropped; a value wholly in single or double
///   quotes is taken as written between them, blanks and `#` included, with no escapes;
/// - every value must be a reference: a plain value is refused, since a secret pasted into the
///   file would otherwise reach the command from a file anyone with a backup can read;
/// - a NAME given twice is refused, naming both lines.
///
/// The file must be a regular file owned by this user and writable by nobody else, in a
/// directory nobody else can write to (`TrustedFile`): whoever could change it could point a
/// variable at another secret. Every error names the file and the line, never a value.
struct EnvFile {
    /// One `NAME=REFERENCE` line.
    struct Entry {
        let variable: String
        let item: ItemName
        let line: Int
        /// `FILE:LINE`, for messages.
        let place: String
    }

    /// Larger than any list of references a person writes; a larger file is refused unread.
    static let maximumSize = 256 * 1024

    let entries: [Entry]

    /// Reads and parses the file at `path`; the items are in access group `group` when one is given.
    init(path: String, group: String?) throws {
        let file = TrustedFile(role: "The env file", path: path, owners: [geteuid()], followsSymbolicLinks: true,
                               maximumSize: Self.maximumSize)
        guard let data = try file.contents() else {
            throw KeychainError(errSecParam, "the env file \(path) does not exist")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeychainError(errSecParam, "the env file \(path) is not UTF-8 text")
        }
        try self.init(parsing: text, path: path, group: group)
    }

    init(parsing text: String, path: String, group: String?) throws {
        var entries: [Entry] = []
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        for (index, rawLine) in lines.enumerated() {
            let place = "\(path):\(index + 1)"
            func failure(_ reason: String) -> KeychainError { KeychainError(errSecParam, "\(place): \(reason)") }
            var line = Self.trimmed(rawLine)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export"), let next = line.dropFirst("export".count).first, next == " " || next == "\t" {
                line = Self.trimmed(line.dropFirst("export".count))
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw failure("expected NAME=\(SecretReference.forms)")
            }
            // A secret pasted as a line can hold "=" (base64 does): until the value is seen to be a
            // reference, neither side of the "=" is repeated.
            let variable = String(Self.trimmed(line[..<equals]))
            guard EnvironmentName.isValid(variable) else {
                throw failure("the text before '=' is not an environment variable name (\(EnvironmentName.rule)); it is not shown, in case it is a secret")
            }
            let value: String
            do throws(SecretReference.Problem) {
                value = try Self.value(Self.trimmed(line[line.index(after: equals)...]))
            } catch {
                throw failure("the value \(error.reason)")
            }
            guard SecretReference.looksLikeOne(value) else {
                throw failure("the value is not a keychain reference (\(SecretReference.forms)); neither it nor its name is shown, in case it is a secret")
            }
            if let earlier = entries.first(where: { $0.variable == variable }) {
                throw failure("\(variable) is given twice, also on line \(earlier.line)")
            }
            let item: ItemName
            do throws(SecretReference.Problem) {
                item = try SecretReference.itemName(value, group: group)
            } catch {
                throw failure("the value of \(variable) \(error.reason)")
            }
            entries.append(Entry(variable: variable, item: item, line: index + 1, place: place))
        }
        self.entries = entries
    }

    /// The value as written: the text between matching quotes, or up to a comment.
    private static func value(_ text: Substring) throws(SecretReference.Problem) -> String {
        if let quote = text.first, quote == "\"" || quote == "'" {
            guard text.count >= 2, text.last == quote else {
                throw SecretReference.Problem(reason: "has an opening \(quote) with no closing one at the end of the line")
            }
            return String(text.dropFirst().dropLast())
        }
        var end = text.endIndex
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "#", index > text.startIndex, [" ", "\t"].contains(text[text.index(before: index)]) {
                end = index
                break
            }
            index = text.index(after: index)
        }
        return String(trimmed(text[..<end]))
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }
}

/// What may be an environment variable's name: letters, digits and `_`, not starting with a digit.
enum EnvironmentName {
    static let rule = "letters, digits and _, not starting with a digit"

    static func isValid(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
