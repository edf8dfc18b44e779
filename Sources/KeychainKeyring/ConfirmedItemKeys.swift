import CKeyutils
import Synchronization

/// The item keys this process has seen confirmed as items: keys whose target's records held an
/// entry naming exactly that key (by serial) when they were read. A read that wants only the
/// secret of an item it names by its whole primary key (`ItemQuery.includeAttributes` false)
/// may then skip the record read: the kernel's search by name finding a confirmed key is
/// proof enough that the item still exists.
///
/// Why that holds: nothing this library does takes an entry away from a key that stays linked
/// under its name. A delete unlinks the item key before it touches the entry; an update keeps
/// the key (rewritten in place) and its entry, or, when the primary key changes, writes a new
/// key under a new name; an add over a key made by hand moves a new key in, with a new serial;
/// a split moves entries between records, never away from their keys. What the cache does not
/// vouch for (the secret being empty, which an update may change in place) is read as before:
/// a key holding the empty-secret placeholder is checked against its entry.
///
/// A record unlinked by hand with `keyctl unlink` is not seen: items it named still read their
/// secret in a process that confirmed them, until that process ends. Nor is other damage done
/// by hand to what only a full read reads: a record revoked or overwritten (a full read then
/// fails), an attributes key unlinked (a full read then finds no item), or an item key also
/// linked by hand into a keyring nested in the target, which the search by name still finds
/// there after a delete unlinked it from the target. The kernel gives serials
/// at random and never to two live keys, so a confirmed serial names the same key as long as
/// it is linked.
enum ConfirmedItemKeys {
    /// Enough for the items a service reads often; past it the set starts again empty, which
    /// costs only one record read per item.
    static let capacity = 1024

    private static let confirmed = Mutex(Set<UInt64>())

    /// Notes that `key`, linked in `target`, was just read as an item whose entry names it.
    static func confirm(_ key: key_serial_t, in target: key_serial_t) {
        confirmed.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys.insert(combined(key, target))
        }
    }

    /// Whether `key`, found by name in `target`, was confirmed as an item there.
    static func isConfirmed(_ key: key_serial_t, in target: key_serial_t) -> Bool {
        confirmed.withLock { $0.contains(combined(key, target)) }
    }

    private static func combined(_ key: key_serial_t, _ target: key_serial_t) -> UInt64 {
        UInt64(UInt32(bitPattern: target)) << 32 | UInt64(UInt32(bitPattern: key))
    }
}
