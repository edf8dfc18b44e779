import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore
import Synchronization

/// The record that lets a lookup by name be one search of the item key.
///
/// Two kinds of item written by earlier versions are not found by their item key: a layout-1
/// item keyring (`ItemKeyrings`), and a layout-2 item with an empty secret, which has an
/// attributes key and no secret key. So a miss, and the duplicate check of an add, would cost
/// more searches. But this version writes neither, and once a target holds none it never
/// holds one again (only versions from before layout 3 write them, and the two must not
/// share a keyring). So:
///
/// - The `user` key `linux-keychain:layout-3:SERIAL`, linked in the target whose serial it
///   names, says that every item in the target has its item key: there is no layout-1 item,
///   and every layout-2 item has a secret key. The serial is in the name so that the record of
///   a keyring nested in the target, which the kernel's search also reaches, is never found
///   for the target, and finding it is one search with no read.
/// - It is created, exclusively, only by a process that listed the target and proved it:
///   it migrated each layout-1 item keyring it found to layout 3, and gave each layout-2 item
///   without a secret key an item key holding the empty-secret placeholder
///   (`emptySecretPlaceholder`; the attributes key still says the secret is empty). It is
///   never removed, and a record removed by hand only costs the listing again. The listing
///   also removes the `layout-1-gone` record the previous version wrote, which it supersedes.
/// - **Invariant:** while the record is there, every item in the target has its item key, so
///   a lookup by name that finds no item key found nothing.
/// - Each process remembers the targets it found the record in, so that after the first
///   lookup a miss by name is one search. A target whose record is missing is listed at most
///   once per process: the listing costs a describe of every key in it, once.
///
/// A layout-1 item keyring made by hand (with `keyctl`) in a target that has the record is not
/// seen by lookups by name; listings (`keychain list`) still show it, and reading it there
/// migrates it.
extension ItemKeyrings {
    static func layoutThreeDescription(_ target: key_serial_t) -> String { "linux-keychain:layout-3:\(target)" }
    /// The record of the previous version: no layout-1 item (but perhaps layout-2 items without
    /// a secret key).
    static func layoutOneGoneDescription(_ target: key_serial_t) -> String { "linux-keychain:layout-1-gone:\(target)" }

    /// What a lookup by name must still do about items without an item key in a target.
    enum LayoutThreeState {
        /// Every item in the target has its item key now (its items may have been migrated a
        /// moment ago, by this call or another process: a name not found before may be there now).
        case gone
        /// Some may not: look the name up in layouts 2 and 1 too.
        case mayRemain
    }

    /// Whether this process already knows that every item in `target` has its item key (it
    /// found the record, or proved it). Only knowledge from before a search by item key makes
    /// a miss there final: the record may land just after the search, once the item was migrated.
    func isLayoutThreeKnown(_ target: key_serial_t) -> Bool { LayoutThreeKnowledge.isKnown(target) }

    /// `gone` when `target`'s record was found now or earlier in this process, or when listing
    /// it (once per process) proved it, after migrating the items it held, and left the record.
    func layoutThreeState(_ target: key_serial_t) -> LayoutThreeState {
        if hasLayoutThreeRecordNoted(target) { return .gone }
        guard LayoutThreeKnowledge.claimListing(of: target),
              (try? giveEveryItemItsItemKey(in: target)) == true else { return .mayRemain }
        placeLayoutThreeRecord(in: target)
        LayoutThreeKnowledge.recordKnown(target)
        return .gone
    }

    /// Whether `target` has the record (known before, or found now, and then remembered). Does
    /// not list the target, so it may be called holding the record lock.
    func hasLayoutThreeRecordNoted(_ target: key_serial_t) -> Bool {
        if LayoutThreeKnowledge.isKnown(target) { return true }
        guard hasLayoutThreeRecord(target) else { return false }
        LayoutThreeKnowledge.recordKnown(target)
        return true
    }

    private func hasLayoutThreeRecord(_ target: key_serial_t) -> Bool {
        // Only "no such key" means absent; any other failure is doubt, and doubt keeps looking.
        (try? kernel.search(target, type: "user", description: Self.layoutThreeDescription(target))) != nil
    }

    /// Migrates the layout-1 item keyrings linked in `target` to layout 3, gives each layout-2
    /// item without a secret key its item key, and says whether every item now has one. Stops
    /// at the first one left (not migrated, or a key that cannot be described, which is not
    /// known to be no item): the record cannot be written then anyway, and going on would
    /// read every secret in the target in each process while, say, the quota has no room (the
    /// items left are still migrated when they are read by name).
    private func giveEveryItemItsItemKey(in target: key_serial_t) throws -> Bool {
        for serial in try kernel.contents(of: target) {
            guard let record = try? kernel.describe(serial) else {
                // Gone since the listing (unlinked, or migrated by another process) is fine.
                if isLinked(serial, in: target) { return false }
                continue
            }
            switch record.type {
            case "keyring":
                guard record.description.utf8.starts(with: ItemKeyDescription.prefix.utf8),
                      let description = ItemKeyDescription(parsing: record.description) else { continue }
                guard case .itemKey? = (try? migratedLegacyItem(named: description, in: target))??.storage,
                      isGone(itemKeyring: description, from: target) else { return false }
            case "user":
                guard let description = Self.itemDescription(ofAttributesKey: record.description) else { continue }
                guard try giveItemKey(toLayout2ItemWithAttributesKey: serial, description, in: target) else { return false }
            default:
                continue
            }
        }
        return true
    }

    /// Gives the layout-2 item whose attributes key is `attributesKey` an item key holding the
    /// empty-secret placeholder if it has none; false when that could not be done.
    private func giveItemKey(toLayout2ItemWithAttributesKey attributesKey: key_serial_t, _ description: ItemKeyDescription,
                             in target: key_serial_t) throws -> Bool {
        if (try? searchItemKey(description, in: target)) != nil { return true }
        guard let found = try? loadLayout2(attributesKey, description, in: target), found.storedIn == target else {
            // Broken, or of a keyring nested in the target: not known to be an item here.
            return !isLinked(attributesKey, in: target)
        }
        // A secret key missing from an item with a secret is a broken item (or one between an
        // earlier version's two moves), reported when it is read: not an empty secret.
        guard found.secretIsEmpty else { return false }
        do {
            try Self.emptySecretPlaceholder.withUnsafeBytes {
                _ = try addKey(description.text, payload: $0, to: target, exclusive: true, permissions: Self.keyPermissions)
            }
        } catch let failure as KeyctlFailure where failure.code == EEXIST {
            // Another process gave it one first.
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

    private func placeLayoutThreeRecord(in target: key_serial_t) {
        // EEXIST: another process proved it first. Any other failure (no quota) only means the
        // next process lists the target again.
        try? Data("every item has its item key".utf8).withUnsafeBytes {
            _ = try addKey(Self.layoutThreeDescription(target), payload: $0, to: target, exclusive: true)
        }
        if let superseded = try? kernel.search(target, type: "user", description: Self.layoutOneGoneDescription(target)) {
            try? kernel.unlink(superseded, from: target)
        }
    }
}

/// What this process knows about items without an item key in its targets (see `layoutThreeState`).
private enum LayoutThreeKnowledge {
    private struct Known {
        var known: Set<key_serial_t> = []
        var listed: Set<key_serial_t> = []
    }

    private static let state = Mutex(Known())

    static func isKnown(_ target: key_serial_t) -> Bool { state.withLock { $0.known.contains(target) } }

    static func recordKnown(_ target: key_serial_t) { state.withLock { _ = $0.known.insert(target) } }

    /// True the first time it is asked for `target` in this process.
    static func claimListing(of target: key_serial_t) -> Bool { state.withLock { $0.listed.insert(target).inserted } }
}
