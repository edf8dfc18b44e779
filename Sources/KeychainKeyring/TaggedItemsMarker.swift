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
/// The `user` key `linux-keychain:tagged-items`, linked in the target keyring, says which: its
/// payload is `no SERIAL` (no tagged item) or `yes SERIAL` (tagged items may exist), SERIAL
/// being the target's, so that a marker of another store, which the kernel's search finds in
/// a keyring nested in the target (the session keyring usually holds the user keyring), is
/// never taken for the target's. The marker only ever moves forward: absent, then `no`, then
/// `yes`, and is never removed (that would need proof that no tagged item is left, which no
/// kernel operation gives atomically with the removal). So:
///
/// - **Invariant:** while the target's marker is absent or says `no`, the target holds no
///   tagged item.
/// - **Writers of a tagged item** (add, or an update to a tagged name) put `yes` in place
///   (`keyctl_move` displacing whatever marker is there, in one step) before they move the item
///   in. **Writers of an untagged item** create `no` when the target has no marker of its own,
///   exclusively (`KEYCTL_MOVE_EXCL`): it lands only while the marker is absent, when the
///   invariant says no tagged item exists, and a `yes` that lands first makes it fail.
/// - **Readers** look the untagged item up by name first, and read the marker after. A marker
///   absent or `no` after the lookup was so during it (it never goes back), so no tagged item
///   existed at the instant of the lookup: the lookup saw the whole answer at that instant,
///   which is where the read takes effect. Reading the marker first would not do: a tagged add
///   and then an update of the untagged item could both land between the two, and the reader
///   would return the update without the add that returned before it.
///
/// Any doubt means "tagged items may exist" and sends the reader to the full read: a marker of
/// another keyring, one that cannot be read, a payload this library does not write.
///
/// Tagged items made by hand with `keyctl` are not seen by such queries while the marker is
/// absent or `no` (docs/keyring.md, "Speed").
struct TaggedItemsMarker: Sendable {
    static let description = "linux-keychain:tagged-items"

    let kernel: KernelKeys

    /// What the target's marker says.
    enum State: Equatable {
        /// No marker in the target or below it: no tagged item either.
        case absent
        case noTaggedItems
        case taggedItemsMayExist
        /// A marker of another keyring, or one that cannot be read or parsed.
        case unknown
    }

    /// False only when the target's marker is absent or says `no`.
    func mayHoldTaggedItems(_ target: key_serial_t) -> Bool {
        switch state(in: target) {
        case .absent, .noTaggedItems: return false
        case .taggedItemsMayExist, .unknown: return true
        }
    }

    /// Called before an item named `description` is moved into `target`: sets the marker to
    /// `yes` for a tagged item, and creates it as `no` for an untagged one when the target has
    /// none of its own, so that readers of the target's untagged items can trust a lookup by name.
    func recordWrite(of description: ItemKeyDescription, in target: key_serial_t) throws {
        let record = state(in: target)
        do {
            if description.isTagged {
                guard record != .taggedItemsMayExist else { return }
                try placeMarker(saying: "yes", in: target, exclusive: false)
            } else {
                guard record != .noTaggedItems && record != .taggedItemsMayExist else { return }
                try placeMarker(saying: "no", in: target, exclusive: true)
            }
        } catch let failure as KeyctlFailure where failure.code == EEXIST {
            // Another writer created the marker first; whatever it says is right for this write.
            return
        } catch let failure as KeyctlFailure {
            throw failure.keychainError("recording in keyring \(target) whether it holds items with access groups or other tags")
        }
    }

    private func placeMarker(saying state: String, in target: key_serial_t, exclusive: Bool) throws {
        try Data("\(state) \(target)".utf8).withUnsafeBytes {
            _ = try kernel.placeUserKey(Self.description, payload: $0, in: target, exclusive: exclusive,
                                        permissions: KernelKeys.readOnlyPermissions)
        }
    }

    private func state(in target: key_serial_t) -> State {
        let key: key_serial_t
        do {
            // Linked directly in the target, which the thread possesses: the kernel proves
            // possession at once. A writer displacing it before the read makes the read fail,
            // which is doubt, and sends the reader to the full read.
            key = try kernel.search(target, type: "user", description: Self.description)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            // Only the search's "no such key" means absent; a marker that fails later (say,
            // invalidated by hand) is in doubt.
            return .absent
        } catch {
            return .unknown
        }
        guard let payload = try? kernel.readPublicPayload(key) else { return .unknown }
        switch String(decoding: payload, as: UTF8.self) {
        case "no \(target)": return .noTaggedItems
        case "yes \(target)": return .taggedItemsMayExist
        default: return .unknown
        }
    }
}
