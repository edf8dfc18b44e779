import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// A service name no other test or earlier run uses.
func uniqueService(_ purpose: String) -> String {
    "lkc-keyring-test-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// A query that fixes the whole primary key, as the CLI and the typed API send.
func primaryKeyQuery(_ service: String, _ account: String, secrets: Bool) -> ItemQuery {
    ItemQuery(primaryKey: genericItem(service, account, Data()).primaryKey, includeSecrets: secrets)
}

/// An item built by hand in the backend's layout.
struct CraftedItem {
    let service: String
    let itemKey: key_serial_t
    /// Only for an item made with its attributes in an attributes key.
    let attributesKey: key_serial_t?
}

extension KernelKeys {
    /// Builds the item `service`, account "acct", secret "secret" (with `extra` attributes) in
    /// `target`, the way an administrator with `keyctl` could: its keys with the kernel's
    /// default permissions (which let the test revoke, expire or restrict them), and its entry
    /// in the records naming the item key; with `attributes`, the entry points to an
    /// attributes key holding that payload. The calling thread must possess `target`.
    func craftItem(_ service: String, _ extra: [AttributeKey: AttributeValue] = [:], in target: key_serial_t,
                   attributes payload: Data? = nil) throws -> CraftedItem {
        let item = genericItem(service, "acct", Data("secret".utf8), extra: extra)
        let description = try ItemKeyDescription(item.primaryKey)
        let itemKey = try Data("secret".utf8).withUnsafeBytes { try addUserKey(description.text, payload: $0, to: target) }
        let attributesKey = try payload.map { payload in
            try payload.withUnsafeBytes { try addUserKey(AttributesKey.description(of: description), payload: $0, to: target) }
        }
        let hash = ItemRecords.nameHash(description)
        let entry = try payload == nil
            ? #require(ItemRecordEntry(item, nameHash: hash, itemKey: itemKey, secretIsEmpty: false))
            : .pointingToAttributesKey(nameHash: hash, itemKey: itemKey, secretIsEmpty: false)
        try KeyringRecordLock(kernel: self).withLock(in: target) {
            try ItemRecords(kernel: self).changeEntryLocked(hash, in: target) { _ in entry }
        }
        return CraftedItem(service: service, itemKey: itemKey, attributesKey: attributesKey)
    }

    /// Runs `body` with a new keyring of its own, linked in the session keyring so that every
    /// thread of the process possesses it, and unlinks it after.
    func withSessionKeyring(_ purpose: String, _ body: (key_serial_t) throws -> Void) throws {
        let session = keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)
        try #require(session > 0)
        let keyring = try addKeyring(uniqueService(purpose), to: session)
        defer { try? unlink(keyring, from: session) }
        try body(keyring)
    }
}

extension KernelKeys {
    /// A fresh keyring in the default target, a backend storing in it, and its cleanup: its
    /// serial is one no other test has seen (the process remembers what it learned per
    /// serial). Sync tests stay on one thread, which possesses the target once `resolve`
    /// linked it.
    func ownKeyring(_ purpose: String) throws -> (serial: key_serial_t, backend: KernelKeyringBackend, remove: () -> Void) {
        let parent = try resolve(nil).serial
        let serial = try addKeyring(uniqueService(purpose), to: parent)
        return (serial, KernelKeyringBackend(testingIn: serial), { [self] in try? unlink(serial, from: parent) })
    }
}

extension ItemRecords {
    /// Every entry in `target`'s records, by name hash: each where a reader would find it.
    func allEntries(in target: key_serial_t) throws -> [UInt64: ItemRecordEntry] {
        guard let first = try readRecord(target, bucket: 0)?.record else { return [:] }
        var records: [Int: ItemRecord] = [0: first]
        var highest = first.log2BucketCount
        var bucket = 1
        while bucket < 1 << Int(highest) {
            if let record = try readRecord(target, bucket: bucket)?.record {
                records[bucket] = record
                highest = max(highest, record.log2BucketCount)
            }
            bucket += 1
        }
        var entries: [UInt64: ItemRecordEntry] = [:]
        for record in records.values {
            for entry in record.entries where entries[entry.nameHash] == nil {
                if case .found(let current) = try ItemRecords.locate(entry.nameHash, from: first.log2BucketCount, in: { records[$0] }) {
                    entries[entry.nameHash] = current
                }
            }
        }
        return entries
    }
}
