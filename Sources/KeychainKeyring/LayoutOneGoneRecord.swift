import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore
import Synchronization

/// The record that lets a lookup by name skip looking for a layout-1 item.
///
/// A name with no layout-2 item might still be a layout-1 item keyring (`ItemKeyrings`), so a
/// miss, and the duplicate check of an add, cost a second search. But this version never
/// writes layout 1, and once a target holds no layout-1 item it never holds one again (only a
/// version from before layout 2 writes them, and the two must not share a keyring). So:
///
/// - The `user` key `linux-keychain:layout-1-gone:SERIAL`, linked in the target whose serial
///   it names, says that the target holds no layout-1 item. The serial is in the name so that
///   the record of a keyring nested in the target, which the kernel's search also reaches, is
///   never found for the target, and finding it is one search with no read.
/// - It is created, exclusively, only by a process that listed the target, found no layout-1
///   item keyring in it (after migrating each one it found to layout 2), and so proved it.
///   It is never removed, and a record removed by hand only costs the search again.
/// - **Invariant:** while the record is there, the target holds no layout-1 item, so a lookup
///   by name that finds no layout-2 item found nothing.
/// - Each process remembers the targets it found the record in, so that after the first
///   lookup a miss by name is one search. A target whose record is missing is listed at most
///   once per process: the listing costs a describe of every key in it, once.
///
/// A layout-1 item keyring made by hand (with `keyctl`) in a target that has the record is not
/// seen by lookups by name; listings (`keychain list`) still show it, and reading it there
/// migrates it.
extension ItemKeyrings {
    static func layoutOneGoneDescription(_ target: key_serial_t) -> String { "linux-keychain:layout-1-gone:\(target)" }

    /// What a lookup by name must still do about layout 1 in a target.
    enum LayoutOneState {
        /// The target holds no layout-1 item now (its items may have been migrated to layout
        /// 2 a moment ago, by this call or another process: a name not found in layout 2
        /// before may be there now).
        case gone
        /// It may hold some: look the name up in layout 1 too.
        case mayRemain
    }

    /// Whether this process already knows that `target` holds no layout-1 item (it found the
    /// record, or proved it). Only knowledge from before a search in layout 2 makes a miss
    /// there final: the record may land just after the search, once the item was migrated.
    func isLayoutOneKnownGone(_ target: key_serial_t) -> Bool { LayoutOneKnowledge.isKnownGone(target) }

    /// Whether `target` may hold layout-1 items: `gone` when its record was found now or
    /// earlier in this process, or when listing it (once per process) proved it, after
    /// migrating the ones it held, and left the record there.
    func layoutOneState(_ target: key_serial_t) -> LayoutOneState {
        if LayoutOneKnowledge.isKnownGone(target) { return .gone }
        if hasLayoutOneGoneRecord(target) {
            LayoutOneKnowledge.recordGone(target)
            return .gone
        }
        guard LayoutOneKnowledge.claimListing(of: target),
              (try? migrateEveryLayoutOneItem(in: target)) == true else { return .mayRemain }
        placeLayoutOneGoneRecord(in: target)
        LayoutOneKnowledge.recordGone(target)
        return .gone
    }

    private func hasLayoutOneGoneRecord(_ target: key_serial_t) -> Bool {
        // Only "no such key" means absent; any other failure is doubt, and doubt keeps looking.
        (try? kernel.search(target, type: "user", description: Self.layoutOneGoneDescription(target))) != nil
    }

    /// Rewrites in layout 2 the layout-1 item keyrings linked in `target`, and whether none is
    /// left. Stops at the first one left (not migrated, or a key that cannot be described,
    /// which is not known to be no item keyring): the record cannot be written then anyway,
    /// and going on would read every secret in the target in each process while, say, the
    /// quota has no room (the items left are still migrated when they are read by name).
    private func migrateEveryLayoutOneItem(in target: key_serial_t) throws -> Bool {
        for serial in try kernel.contents(of: target) {
            guard let record = try? kernel.describe(serial) else {
                // Gone since the listing (unlinked, or migrated by another process) is fine.
                if isLinked(serial, in: target) { return false }
                continue
            }
            guard record.type == "keyring", record.description.utf8.starts(with: ItemKeyDescription.prefix.utf8),
                  let description = ItemKeyDescription(parsing: record.description) else { continue }
            guard case .keys? = (try? migratedLegacyItem(named: description, in: target))??.storage,
                  isGone(itemKeyring: description, from: target) else { return false }
        }
        return true
    }

    /// Whether the kernel says no keyring `description` names is in `target` or below it.
    private func isGone(itemKeyring description: ItemKeyDescription, from target: key_serial_t) -> Bool {
        // A failure other than "no such key" (revoked, not accessible) is a keyring still there.
        do {
            return try searchItemKeyring(description, in: target) == nil
        } catch {
            return false
        }
    }

    private func placeLayoutOneGoneRecord(in target: key_serial_t) {
        // EEXIST: another process proved it first. Any other failure (no quota) only means the
        // next process lists the target again.
        try? Data("none".utf8).withUnsafeBytes {
            try addKey(Self.layoutOneGoneDescription(target), payload: $0, to: target, exclusive: true)
        }
    }
}

/// What this process knows about layout-1 items in its targets (see `layoutOneState`).
private enum LayoutOneKnowledge {
    private struct Known {
        var gone: Set<key_serial_t> = []
        var listed: Set<key_serial_t> = []
    }

    private static let known = Mutex(Known())

    static func isKnownGone(_ target: key_serial_t) -> Bool { known.withLock { $0.gone.contains(target) } }

    static func recordGone(_ target: key_serial_t) { known.withLock { _ = $0.gone.insert(target) } }

    /// True the first time it is asked for `target` in this process.
    static func claimListing(of target: key_serial_t) -> Bool { known.withLock { $0.listed.insert(target).inserted } }
}
