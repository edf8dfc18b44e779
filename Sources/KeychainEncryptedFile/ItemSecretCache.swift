#if canImport(Glibc)
import Glibc
#endif
import CKeyutils
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainKernelKeyCalls
import KeychainSystemCalls

/// Keeps the secrets of items read by their primary key in the user's kernel keyring, beside
/// the unlock cache (`MasterKeyCache`), so the next read of the same item, in any process of
/// the user, costs a few kernel calls instead of the lock, a directory walk and a decryption.
///
/// An entry's payload is exactly the secret; its name (`entryDescription`) carries the identity
/// of the item file it was read from, so a file replaced by any writer leaves it unreachable.
/// Entries are made only under the store's shared lock, after the file was read under it, and
/// writers invalidate them under the exclusive lock (`invalidate`). Filled by reads only; where
/// the keyring is unusable or full, every method quietly does nothing.
/// See docs/file.md#the-secret-cache.
struct ItemSecretCache: Sendable {
    /// Seconds an entry lives; 0 disables filling and reading (invalidation still runs).
    let lifetime: UInt32
    /// `linux-keychain:file:<store id>`, made once: every lookup names it.
    private let prefix: String

    init(lifetime: UInt32, storeID: Data) {
        self.lifetime = lifetime
        prefix = "linux-keychain:file:\(hexString(storeID))"
    }

    /// Entries kept per store: an unprivileged user's whole key quota is 200 keys and 20,000
    /// bytes, shared with the keyring backend, so the cache keeps to a small corner of it.
    /// When full, the store's entries are dropped and filling starts again.
    static let capacity = 16
    /// The kernel's limit on a `user` key's payload; larger secrets are not cached.
    static let largestSecret = 32_767

    private var keyringDescription: String { prefix + ":items" }

    /// The entry's name: the item's file name (its first half, which the store id and identity
    /// make unique enough) and the identity of the file it was read from.
    func entryDescription(_ location: ItemLocation, _ identity: FileIdentity) -> String {
        entryNamePrefix(location) + identity.text
    }

    /// The part of an entry's name that stays the same while its item stays at `location`;
    /// `SecretCacheRoutes` keeps it, so a cached read appends only the file's identity.
    func entryNamePrefix(_ location: ItemLocation) -> String {
        "\(prefix):\(location.file.prefix(32)):"
    }

    /// The cached secret in the entry named `entryDescription` (as `entryDescription` makes
    /// it, for the item file there now), or nil when there is none or the cache is off.
    func secret(entry entryDescription: String) -> SecretBytes? {
        guard lifetime > 0,
              let entry = try? KernelKeyCalls.search(KEY_SPEC_USER_KEYRING, type: "user", description: entryDescription)
        else { return nil }
        return Self.read(entry)
    }

    /// Caches `secret` as the secret of the item file `identity` at `location`. Call only with
    /// the store's shared lock held, after reading that file under it.
    func store(_ secret: SecretBytes, at location: ItemLocation, identity: FileIdentity) {
        guard lifetime > 0, secret.count <= Self.largestSecret, let keyring = storeKeyring() else { return }
        var ids = [Int32](repeating: 0, count: Self.capacity)
        let listed = ids.withUnsafeMutableBytes { (try? KernelKeyCalls.read(keyring, into: $0)) ?? 0 }
        if listed / MemoryLayout<Int32>.size >= Self.capacity {
            _ = try? syscall("keyctl_clear") { keyctl_clear(keyring) }
        }
        secret.withUnsafeBytes { bytes in
            _ = try? KernelKeyCalls.putExpiring(entryDescription(location, identity), payload: bytes, lifetime: lifetime, into: keyring)
        }
        // The keyring lives as long as its newest entry.
        _ = try? syscall("keyctl_set_timeout") { keyctl_set_timeout(keyring, lifetime) }
    }

    /// Drops the entry for the file `identity` at `location`, before a writer replaces or
    /// removes that file (under the store's exclusive lock).
    func invalidate(at location: ItemLocation, identity: FileIdentity) {
        if let entry = try? KernelKeyCalls.search(KEY_SPEC_USER_KEYRING, type: "user", description: entryDescription(location, identity)) {
            _ = try? KernelKeyCalls.invalidate(entry)
        }
    }

    /// This store's keyring of entries in `@u`, made (possessor-only, expiring) if missing.
    private func storeKeyring() -> key_serial_t? {
        if let found = try? KernelKeyCalls.search(KEY_SPEC_USER_KEYRING, type: "keyring", description: keyringDescription) {
            return found
        }
        // Made in the process keyring first and linked into @u only once it has its
        // permissions and timeout, as the unlock cache's key is.
        guard let made = try? KernelKeyCalls.add(type: "keyring", keyringDescription, payload: nil, to: KEY_SPEC_PROCESS_KEYRING) else {
            return nil
        }
        defer { _ = try? KernelKeyCalls.unlink(made, from: KEY_SPEC_PROCESS_KEYRING) }
        do {
            try KernelKeyCalls.setPermissions(made, ckeyutils_possessor_only)
            try syscall("keyctl_set_timeout") { keyctl_set_timeout(made, lifetime) }
            try KernelKeyCalls.link(made, into: KEY_SPEC_USER_KEYRING)
            return made
        } catch {
            _ = try? KernelKeyCalls.invalidate(made)
            return nil
        }
    }

    /// The payload of `entry`, read into zeroed-on-release storage; nil on any failure.
    private static func read(_ entry: key_serial_t) -> SecretBytes? {
        // Most secrets fit the first read; a larger one is read again at its exact size.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
        defer {
            SecretBytes.zero(scratch)
            scratch.deallocate()
        }
        guard let length = try? KernelKeyCalls.read(entry, into: scratch) else { return nil }
        if length <= scratch.count { return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<length])) }
        guard length <= largestSecret else { return nil }
        var complete = true
        let secret = SecretBytes(count: length) { target in
            complete = (try? KernelKeyCalls.read(entry, into: target)) == length
        }
        return complete ? secret : nil
    }
}

/// What tells one item file from its replacement: device, inode, size and change time.
struct FileIdentity: Equatable, Sendable {
    private let device: UInt64
    private let inode: UInt64
    private let size: UInt64
    private let changeSeconds: UInt64
    private let changeNanoseconds: UInt64

    /// The identity of the regular file `status` describes; nil for anything else.
    init?(_ status: stat) {
        guard status.st_mode & S_IFMT == S_IFREG else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = UInt64(status.st_size)
        changeSeconds = UInt64(bitPattern: Int64(status.st_ctim.tv_sec))
        changeNanoseconds = UInt64(status.st_ctim.tv_nsec)
    }

    /// The identity as it appears in entry names: dot-separated hex numbers without leading
    /// zeros, written by hand because string interpolation of five numbers costs a noticeable
    /// share of a cached read.
    var text: String {
        let fields = [device, inode, size, changeSeconds, changeNanoseconds]
        return String(unsafeUninitializedCapacity: fields.count * 17) { buffer in
            var end = 0
            for (index, field) in fields.enumerated() {
                if index > 0 { buffer[end] = UInt8(ascii: "."); end += 1 }
                let digits = max(1, (64 - field.leadingZeroBitCount + 3) / 4)
                for position in (0..<digits).reversed() {
                    let nibble = UInt8((field >> UInt64(position * 4)) & 0xF)
                    buffer[end] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    end += 1
                }
            }
            return end
        }
    }
}
