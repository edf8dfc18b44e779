extension String {
    /// The text cut or padded with spaces to exactly `width` characters, for columns (what
    /// Foundation's `padding(toLength:withPad:startingAt:)` did, counted in characters).
    func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
