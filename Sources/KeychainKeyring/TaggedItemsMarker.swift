import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// The marker that lets a query by service and account skip reading every item.
///
/// A SecItem query that names service and account but leaves the access group and the
/// synchronizable flag open (what `SecItemUpdate`, `SecItemDelete` and `SecItemCopyMatching`
/// with `kSecMatchLimitAll` send) matches the item of that service and account in any access
/// group. The kernel cannot look names up by prefix, so answering it in general means reading
/// every item in the keyring. But most stores hold no item whose name carries more than
/// service and account (`ItemKeyDescription.isTagged`), and in such a store the only item
/// the query can match is the untagged one, which the kernel finds by name at once.
///
/// The `user` key `linux-keychain:tagged-items`, linked in the target keyring, records that a
/// tagged item may exist. The protocol:
///
/// - **Writers** create it (exclusively, so concurrent writers need no coordination) before
///   they move a tagged item into the target, by add or by update, and nobody removes it.
///   Removing it would need proof that no tagged item is left, which no kernel operation can
///   give atomically with the removal.
/// - **Readers** look the untagged item up by name first, and check for the marker after. A
///   marker absent after the lookup was absent during it (it is never removed), so no tagged
///   item existed at the instant of the lookup: the lookup saw the whole answer at that instant,
///   which is where the read takes effect. Checking first would not do: a tagged add and then
///   an update of the untagged item could both land between check and lookup, and the reader
///   would return the update without the add that returned before it.
///
/// Any doubt counts as "tagged items may exist" and sends the reader to the full read: a marker
/// that cannot be searched or is revoked, and a marker of another store that the kernel's
/// search finds in a keyring nested in the target (the session keyring usually holds the user
/// keyring). Only a missing marker is trusted, and the kernel reports one missing only when it
/// is neither in the target nor nested below it.
///
/// Tagged items made by hand with `keyctl`, or by a version of this library from before the
/// marker, are not seen by such queries until the marker exists (README: "Speed").
extension ItemKeyrings {
    static let taggedItemsMarkerDescription = "linux-keychain:tagged-items"
    /// The kernel refuses an empty `user` key; the text says what the key is to `keyctl print`.
    private static let taggedItemsMarkerPayload = Data("items with access groups or other tags exist here".utf8)

    /// Makes sure the marker is linked in `target` itself (not merely below it, where its link
    /// could be removed with the keyring that holds it).
    func markTaggedItems(in target: key_serial_t) throws {
        do {
            try Self.taggedItemsMarkerPayload.withUnsafeBytes {
                try addKey(Self.taggedItemsMarkerDescription, payload: $0, to: target)
            }
        } catch let failure as KeyctlFailure where failure.code == EEXIST {
            return
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("marking keyring \(target) as holding items with access groups or other tags")
        }
    }

    /// False only when the kernel says there is no marker in `target` or below it.
    ///
    /// The kernel answers "none" only after looking into every keyring nested in `target`, that
    /// is every item keyring: about 0.5 µs per item, still far less than reading them.
    func mayHoldTaggedItems(_ target: key_serial_t) -> Bool {
        do {
            _ = try kernel.search(target, type: "user", description: Self.taggedItemsMarkerDescription)
            return true
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            return false
        } catch {
            return true
        }
    }
}
