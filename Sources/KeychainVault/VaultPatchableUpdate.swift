import KeychainCore

/// An update that one KV version 2 `PATCH` can apply, without reading the item first.
///
/// That holds when the query leads to exactly one path and asks nothing of the item beyond
/// being there: it fixes the whole primary key (the front end adds a program's own access
/// group, so an application's `SecItemUpdate` by service and account qualifies) and constrains
/// no other attribute, which only a read could check. The changes must also keep the primary
/// key, since a rename moves the item to another path, and set none of the attributes Apple
/// takes as a String or a Data (`AttributeKey.acceptsStringOrData`: label, comment, ...): the
/// item's record of which of those were given as the other type (`ValueTypes`) is one field,
/// the stored list merged with the changed ones, and a patch that does not read it could
/// only overwrite it. Changes without such attributes leave that record as stored, which is
/// what the merge gives. Every other update reads first.
///
/// Given those, the path holding a live version is the whole match (the path decides an
/// item's primary key, see `VaultItemFields`), and the server's answer to the `PATCH` says
/// which case it is: merged, or no live version there.
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
