import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls

/// The marker that lets a query by service and account, with the access group and the synchronizable flag left open, be
/// answered by one lookup by name instead of a read of every item: the `user` key `linux-keychain:tagged-items` in the
/// target, saying `no SERIAL` (no item whose name carries more than service and account, `ItemKeyDescription.isTagged`)
/// or `yes SERIAL` (tagged items may exist), SERIAL being the target's.
///
/// **Invariant:** while the target's marker is absent or says `no`, the target holds no tagged item. The marker only
/// moves forward (absent, `no`, `yes`); writers of a tagged item put `yes` in place before the item, writers of an
/// untagged item create `no` only where there is no marker; readers look the untagged item up by name first and read
/// the marker after, and any doubt sends them to the full read. docs/keyring.md ("Speed") gives the reasons.
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
        } catch Errno.fileExists {
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
            // A writer displacing it before the read makes the read fail: doubt, so the full read.
            key = try kernel.search(target, type: "user", description: Self.description)
        } catch let failure as KeyctlFailure where failure.isNoSuchKey {
            // Only this means absent; a marker that fails later (invalidated by hand) is in doubt.
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
