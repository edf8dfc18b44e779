import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// A libkeyutils call that failed: the call's name and the errno it left.
struct KeyctlFailure: Error, Sendable {
    let call: String
    let code: Int32

    var isNoSuchKey: Bool { code == ENOKEY }
}

/// What `keyctl_describe` reports about a key.
struct KeyDescriptionRecord: Sendable {
    let type: String
    let permissions: key_perm_t
    let description: String
}

/// The libkeyutils calls this backend makes, and nothing else.
///
/// Every call goes through `perform`, which reads `errno` right after the C call, retries
/// `EINTR`, and turns any other failure into a `KeyctlFailure` naming the call. Keys are
/// addressed by serial number; the special IDs are used only to find a keyring's serial and
/// for the thread keyring (`KEY_SPEC_THREAD_KEYRING`), which is per OS thread and so a
/// private staging area for the one operation running on that thread.
struct KernelKeys: Sendable {
    /// Debug builds only: an errno that every call fails with before reaching the kernel, so
    /// tests can take the path a seccomp filter (Docker's default profile) forces.
    let simulatedRefusal: Int32?

    init(simulatedRefusal: Int32? = nil) {
        #if DEBUG
        self.simulatedRefusal = simulatedRefusal
        #else
        self.simulatedRefusal = nil
        #endif
    }

    static let threadKeyring: key_serial_t = KEY_SPEC_THREAD_KEYRING

    @discardableResult
    private func perform(_ call: String, _ body: () -> Int) throws -> Int {
        #if DEBUG
        if let simulatedRefusal { throw KeyctlFailure(call: call, code: simulatedRefusal) }
        #endif
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw KeyctlFailure(call: call, code: code) }
        }
    }

    // MARK: - Creating keys

    /// Adds a `user` key holding `payload` to `keyring` and returns its serial.
    func addUserKey(_ description: String, payload: UnsafeRawBufferPointer, to keyring: key_serial_t) throws -> key_serial_t {
        key_serial_t(try perform("add_key") {
            Int(add_key("user", description, payload.baseAddress, payload.count, keyring))
        })
    }

    /// Creates an empty keyring linked into `keyring` and returns its serial.
    func addKeyring(_ description: String, to keyring: key_serial_t) throws -> key_serial_t {
        key_serial_t(try perform("add_key") { Int(add_key("keyring", description, nil, 0, keyring)) })
    }

    func setPermissions(_ key: key_serial_t, _ permissions: key_perm_t) throws {
        try perform("keyctl_setperm") { keyctl_setperm(key, permissions) }
    }

    /// Replaces the payload of `key` in one step (`keyctl_update`); readers see the old
    /// payload or the new one.
    func update(_ key: key_serial_t, payload: UnsafeRawBufferPointer) throws {
        try perform("keyctl_update") { keyctl_update(key, payload.baseAddress, payload.count) }
    }

    // MARK: - Links

    /// Moves `key` from one keyring to another in one step. With `exclusive`, fails with
    /// `EEXIST` when the destination already holds a key of the same type and description;
    /// without it, such a key is displaced atomically.
    func move(_ key: key_serial_t, from source: key_serial_t, to destination: key_serial_t, exclusive: Bool) throws {
        let flags = exclusive ? UInt32(KEYCTL_MOVE_EXCL) : 0
        try perform("keyctl_move") { keyctl_move(key, source, destination, flags) }
    }

    func link(_ key: key_serial_t, into keyring: key_serial_t) throws {
        try perform("keyctl_link") { keyctl_link(key, keyring) }
    }

    func unlink(_ key: key_serial_t, from keyring: key_serial_t) throws {
        try perform("keyctl_unlink") { keyctl_unlink(key, keyring) }
    }

    // MARK: - Finding keyrings

    /// The caller's persistent keyring, linked into the thread keyring so that this thread
    /// possesses it. Each call also restarts the keyring's expiry timer.
    func persistentKeyringLinkedIntoThread() throws -> key_serial_t {
        key_serial_t(try perform("keyctl_get_persistent") {
            keyctl_get_persistent(uid_t.max, Self.threadKeyring)
        })
    }

    /// The serial behind a special keyring ID such as `KEY_SPEC_USER_KEYRING`.
    func serial(of special: key_serial_t, create: Bool) throws -> key_serial_t {
        key_serial_t(try perform("keyctl_get_keyring_ID") { Int(keyctl_get_keyring_ID(special, create ? 1 : 0)) })
    }

    /// The key of `type` and exact `description` reachable from `keyring`, searching nested
    /// keyrings. Fails with `ENOKEY` when there is none, and with `EKEYREVOKED`,
    /// `EKEYEXPIRED` or `EACCES` when the matching key is revoked, expired or not searchable.
    ///
    /// The kernel looks among the keys linked in `keyring` itself first, so finding one of them
    /// costs the same however many keys `keyring` holds; only then, and so whenever there is no
    /// such key, does it walk every keyring nested in `keyring`.
    ///
    /// With `destination`, the key found is also linked there, which fails with `EACCES` when
    /// the key does not grant link.
    func search(_ keyring: key_serial_t, type: String, description: String,
                linkingInto destination: key_serial_t = 0) throws -> key_serial_t {
        key_serial_t(try perform("keyctl_search") { keyctl_search(keyring, type, description, destination) })
    }

    // MARK: - Reading

    /// What the kernel says about `key`.
    func describe(_ key: key_serial_t) throws -> KeyDescriptionRecord {
        let bytes = try readGrowing("keyctl_describe", from: Self.typicalDescription) { keyctl_describe(key, $0, $1) }
        // The kernel counts and copies the terminating NUL.
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        // "type;uid;gid;perm;description": the description is last and may itself hold ';'.
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, let permissions = key_perm_t(fields[3], radix: 16) else {
            throw KeyctlFailure(call: "keyctl_describe", code: EBADMSG)
        }
        return KeyDescriptionRecord(type: String(fields[0]), permissions: permissions, description: String(fields[4]))
    }

    /// The serials linked in `keyring`.
    func contents(of keyring: key_serial_t) throws -> [key_serial_t] {
        let bytes = try readPublicPayload(keyring)
        let size = MemoryLayout<key_serial_t>.size
        return bytes.withUnsafeBytes { raw in
            (0..<(raw.count / size)).map { raw.loadUnaligned(fromByteOffset: $0 * size, as: key_serial_t.self) }
        }
    }

    /// The payload of a key that holds no secret (a keyring listing, stored attributes).
    func readPublicPayload(_ key: key_serial_t) throws -> [UInt8] {
        try readGrowing("keyctl_read", from: Self.typicalPublicPayload) { keyctl_read(key, $0, $1) }
    }

    /// What `call` writes through `fill(buffer, capacity)`, which returns the length of the
    /// whole text and copies it only if it fits. Tries a buffer of a typical size first, so
    /// that most reads take one call, then one as large as the text needs while it grows.
    private func readGrowing(_ call: String, from typicalSize: Int,
                             _ fill: (UnsafeMutablePointer<CChar>?, Int) -> Int) throws -> [UInt8] {
        var capacity = typicalSize
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let length = try buffer.withUnsafeMutableBytes { raw in
                try perform(call) { fill(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count) }
            }
            if length <= capacity {
                buffer.removeLast(capacity - length)
                return buffer
            }
            capacity = length
        }
    }

    private static let typicalPublicPayload = 4096
    private static let typicalDescription = 512

    /// The payload of a secret key in one call when it is no larger than `typicalSecret`: read
    /// into a scratch buffer that is zeroed before it is freed, then copied into zeroed-on-
    /// release storage. A larger one takes the two reads of `readSecret`.
    func readSecretOnce(_ key: key_serial_t) throws -> SecretBytes {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.typicalSecret, alignment: 1)
        defer {
            SecretBytes.zero(scratch)
            scratch.deallocate()
        }
        let length = try perform("keyctl_read") {
            keyctl_read(key, scratch.baseAddress?.assumingMemoryBound(to: CChar.self), scratch.count)
        }
        guard length <= scratch.count else { return try readSecret(key) }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
    }

    private static let typicalSecret = 1024

    /// The payload of a secret key, read straight into zeroed-on-release storage so that no
    /// other copy of the secret is left in this process.
    func readSecret(_ key: key_serial_t) throws -> SecretBytes {
        var length = try perform("keyctl_read") { keyctl_read(key, nil, 0) }
        while true {
            var actual = 0
            let secret = try SecretBytes(count: length) { target in
                actual = try perform("keyctl_read") {
                    keyctl_read(key, target.baseAddress?.assumingMemoryBound(to: CChar.self), target.count)
                }
            }
            if actual == length { return secret }
            // The payload changed size between the two reads; `secret` is zeroed as it goes.
            length = actual
        }
    }
}
