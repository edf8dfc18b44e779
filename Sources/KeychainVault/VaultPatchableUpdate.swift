import KeychainCore

/// An update that one KV version 2 `PATCH` can apply, without reading the item first.
///
/// Holds when the query fixes the whole primary key and constrains no other attribute (only a
/// read could check one), and the changes keep that key (a rename moves the item) and set no
/// attribute Apple takes as a String or a Data (`AttributeKey.acceptsStringOrData`), whose
/// record (`ValueTypes`) is one field a patch could only overwrite, not merge. Then a live
/// version at the path is the whole match, and the server's answer says which case it is:
/// merged, or nothing there. See docs/vault.md#consistency-across-machines.
struct VaultPatchableUpdate {
    /// The primary key of the one item the update can reach.
    let key: PrimaryKey
    /// The merge patch that applies the changes (`VaultItemFields.patch(applying:)`).
    let fields: VaultRequestBody

    /// Nil when `query` and `changes` need the read-then-write update.
    init?(_ query: ItemQuery, changes: ItemChanges) {
        guard let direct = VaultDirectLookup(query), direct.isOnlyCandidate else { return nil }
        let keyAttributes = query.itemClass.primaryKeyAttributes
        guard query.constraints.values.keys.allSatisfy(keyAttributes.contains) else { return nil }
        let changedKey = PrimaryKey(itemClass: query.itemClass, attributes: direct.key.attributes.merging(changes.attributes))
        guard changedKey == direct.key else { return nil }
        guard changes.attributes[.valueTypes] == nil,
              !changes.attributes.values.keys.contains(where: \.acceptsStringOrData) else { return nil }
        key = direct.key
        fields = VaultItemFields.patch(applying: changes)
    }
}
