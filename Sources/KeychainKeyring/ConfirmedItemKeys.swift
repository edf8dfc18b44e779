import KeychainCore
import CKeyutils

/// The item keys this process has seen confirmed as items: keys whose target's records held an entry naming exactly
/// that key (by serial) when they were read. A read that wants only the secret of an item it names by its whole primary
/// key (`ItemQuery.includeAttributes` false) may then skip the record read: the kernel's search by name finding a
/// confirmed key is proof enough that the item still exists, since nothing this library does takes an entry away from a
/// key that stays linked under its name. The secret being empty, which an update may change in place, is still checked
/// against the entry. What this does not see (damage done by hand) is in docs/keyring.md ("Speed").
enum ConfirmedItemKeys {
    /// Enough for the items a service reads often; past it the set starts again empty, which
    /// costs only one record read per item.
    static let capacity = 1024

    private static let confirmed = Locked(Set<UInt64>())

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
