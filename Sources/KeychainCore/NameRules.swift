/// The rule every backend applies to the strings it is given: no NUL characters.
///
/// The Secret Service (attributes and labels travel as C strings) and the kernel keyring (key
/// descriptions are C strings) cannot store a NUL; they would cut `X\0evil` to `X` and alias
/// it with the item `X`. So that all backends agree, every backend refuses a string attribute
/// holding a NUL with `errSecParam`, in items, queries and changes alike, before it touches
/// its store.
public enum NameRules: Sendable {
    /// Throws `errSecParam`, naming the attribute, when a string value in `attributes` holds
    /// a NUL character. Never includes the value itself, which may be sensitive.
    public static func refuseNUL(in attributes: ItemAttributes) throws {
        for (key, value) in attributes {
            guard case .string(let text) = value, text.utf8.contains(0) else { continue }
            throw KeychainError(errSecParam,
                "The value of \(key.rawValue) contains a NUL character, which no keychain backend here can store exactly; remove it.")
        }
    }

    /// `refuseNUL(in:)` on the item's attributes.
    public static func refuseNUL(in item: KeychainItem) throws { try refuseNUL(in: item.attributes) }
    /// `refuseNUL(in:)` on the query's constraints.
    public static func refuseNUL(in query: ItemQuery) throws { try refuseNUL(in: query.constraints) }
    /// `refuseNUL(in:)` on an update's constraints and its new attributes.
    public static func refuseNUL(in query: ItemQuery, _ changes: ItemChanges) throws {
        try refuseNUL(in: query.constraints)
        try refuseNUL(in: changes.attributes)
    }
}
