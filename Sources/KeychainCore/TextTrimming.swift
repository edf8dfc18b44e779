extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (Unicode's space separators and U+0009),
    /// for the modules that run without Foundation.
    package func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// The text without leading and trailing white space and line breaks, as Foundation's
    /// `.whitespacesAndNewlines` (Unicode's separators, U+0009 to U+000D and U+0085).
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return (0x09...0x0D).contains(scalar.value) || scalar.value == 0x85
            }
        }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[first...last])
        return String(text)
    }
}
