import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainKernelKeyCalls
import KeychainSystemCalls

/// A libkeyutils call that failed: the call's name and the errno it left.
typealias KeyctlFailure = SystemCallError

extension SystemCallError {
    var isNoSuchKey: Bool { errno == .noSuchKey }
}

/// What `keyctl_describe` reports about a key.
struct KeyDescriptionRecord: Sendable {
    let type: String
    let permissions: key_perm_t
    let description: String
}

/// The libkeyutils calls this backend makes, and nothing else.
///
/// Every call goes through `KernelKeyCalls`, which reads `errno` right after the C call, retries `EINTR`, and turns any
/// other failure into a `KeyctlFailure` naming the call. Keys are addressed by serial number; the special IDs are used
/// only to find a keyring's serial and for the process keyring (`CProcessKeyring`), the staging area of the thread
/// whose turn it is (`KeyringRecordLock`).
struct KernelKeys: Sendable {
    /// Debug builds only: an errno that every call fails with before reaching the kernel, so
    /// tests can take the path a seccomp filter (Docker's default profile) forces.
    let simulatedRefusal: Errno?

    init(simulatedRefusal: Errno? = nil) {
        #if DEBUG
        self.simulatedRefusal = simulatedRefusal
        #else
        self.simulatedRefusal = nil
        #endif
    }

    static let processKeyring: key_serial_t = KEY_SPEC_PROCESS_KEYRING

    @discardableResult
    private func perform<Result>(_ call: String, _ body: () throws(SystemCallError) -> Result) throws(SystemCallError) -> Result {
        #if DEBUG
        if let simulatedRefusal { throw SystemCallError(call: call, errno: simulatedRefusal) }
        Self.countCall()
        #endif
        return try body()
    }

    #if DEBUG
    /// Debug builds only: how many kernel calls the calling thread has made through this type, so that a test can hold
    /// an operation to the calls it makes; always 0 if the process had no thread-specific slot left for the count.
    static var callsOnThisThread: Int { callCountKey.map { Int(bitPattern: pthread_getspecific($0)) } ?? 0 }

    // Kept in the thread's own slot, as a count in a pointer's bits: tests run in parallel, and
    // each counts only its own thread's calls.
    private static let callCountKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private static func countCall() {
        guard let callCountKey else { return }
        pthread_setspecific(callCountKey, UnsafeRawPointer(bitPattern: callsOnThisThread + 1))
    }
    #endif

    // MARK: - Creating keys

    /// Adds a `user` key holding `payload` to `keyring` and returns its serial.
    func addUserKey(_ description: String, payload: UnsafeRawBufferPointer, to keyring: key_serial_t) throws -> key_serial_t {
        try perform("add_key") { () throws(SystemCallError) in
            try KernelKeyCalls.add(type: "user", description, payload: payload, to: keyring)
        }
    }

    /// Creates an empty keyring linked into `keyring` and returns its serial.
    func addKeyring(_ description: String, to keyring: key_serial_t) throws -> key_serial_t {
        try perform("add_key") { () throws(SystemCallError) in
            try KernelKeyCalls.add(type: "keyring", description, payload: nil, to: keyring)
        }
    }

    func setPermissions(_ key: key_serial_t, _ permissions: key_perm_t) throws {
        try perform("keyctl_setperm") { () throws(SystemCallError) in try KernelKeyCalls.setPermissions(key, permissions) }
    }

    /// Replaces the payload of `key` in one step (`keyctl_update`); readers see the old payload or the new one.
    func update(_ key: key_serial_t, payload: UnsafeRawBufferPointer) throws {
        try perform("keyctl_update") { () throws(SystemCallError) in try KernelKeyCalls.update(key, payload: payload) }
    }

    // MARK: - Links

    /// Moves `key` from one keyring to another in one step. With `exclusive`, fails with `EEXIST` when the destination
    /// already holds a key of the same type and description; without it, such a key is displaced atomically.
    func move(_ key: key_serial_t, from source: key_serial_t, to destination: key_serial_t, exclusive: Bool) throws {
        let flags = exclusive ? UInt32(KEYCTL_MOVE_EXCL) : 0
        try perform("keyctl_move") { () throws(SystemCallError) in
            try KernelKeyCalls.move(key, from: source, to: destination, flags: flags)
        }
    }

    func link(_ key: key_serial_t, into keyring: key_serial_t) throws {
        try perform("keyctl_link") { () throws(SystemCallError) in try KernelKeyCalls.link(key, into: keyring) }
    }

    func unlink(_ key: key_serial_t, from keyring: key_serial_t) throws {
        try perform("keyctl_unlink") { () throws(SystemCallError) in try KernelKeyCalls.unlink(key, from: keyring) }
    }

    /// Makes `key` itself unusable at once (needs search permission); the kernel's collector
    /// then drops its links from every keyring, whatever else those keyrings hold by then.
    func invalidate(_ key: key_serial_t) throws {
        try perform("keyctl_invalidate") { () throws(SystemCallError) in try KernelKeyCalls.invalidate(key) }
    }

    // MARK: - Finding keyrings

    /// The serial of the process keyring, created if the calling thread has none.
    func processKeyringSerial() throws -> key_serial_t {
        try serial(of: Self.processKeyring, create: true)
    }

    /// The caller's persistent keyring, linked into the process keyring so that the process
    /// possesses it. Each call also restarts the keyring's expiry timer.
    func persistentKeyringLinkedIntoProcess() throws -> key_serial_t {
        try perform("keyctl_get_persistent") { () throws(SystemCallError) in
            try KernelKeyCalls.persistentKeyring(linkedInto: Self.processKeyring)
        }
    }

    /// The serial behind a special keyring ID such as `KEY_SPEC_USER_KEYRING`.
    func serial(of special: key_serial_t, create: Bool) throws -> key_serial_t {
        try perform("keyctl_get_keyring_ID") { () throws(SystemCallError) in
            try KernelKeyCalls.serial(of: special, create: create)
        }
    }

    /// The key of `type` and exact `description` reachable from `keyring`, searching nested
    /// keyrings. Fails with `ENOKEY` when there is none, and with `EKEYREVOKED`,
    /// `EKEYEXPIRED` or `EACCES` when the matching key is revoked, expired or not searchable.
    ///
    /// The kernel looks among the keys linked in `keyring` itself first, so finding one of them
    /// costs the same however many keys `keyring` holds; only then, and so whenever there is no
    /// such key, does it walk every keyring nested in `keyring`.
    func search(_ keyring: key_serial_t, type: String, description: String) throws -> key_serial_t {
        try perform("keyctl_search") { () throws(SystemCallError) in
            try KernelKeyCalls.search(keyring, type: type, description: description, linkingInto: 0)
        }
    }

    // MARK: - Reading

    /// What the kernel says about `key`.
    func describe(_ key: key_serial_t) throws -> KeyDescriptionRecord {
        let bytes = try readGrowing("keyctl_describe", from: Self.typicalDescription) { (buffer) throws(SystemCallError) in
            try KernelKeyCalls.describe(key, into: buffer)
        }
        // The kernel counts and copies the terminating NUL.
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        // "type;uid;gid;perm;description": the description is last and may itself hold ';'.
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, let permissions = key_perm_t(fields[3], radix: 16) else {
            throw KeyctlFailure(call: "keyctl_describe", errno: .badMessage)
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
        try readGrowing("keyctl_read", from: Self.typicalPublicPayload) { (buffer) throws(SystemCallError) in
            try KernelKeyCalls.read(key, into: buffer)
        }
    }

    /// What `call` writes through `fill(buffer)`, which returns the length of the whole text
    /// and copies it only if it fits. Tries a buffer of a typical size first, so that most
    /// reads take one call, then one as large as the text needs while it grows.
    private func readGrowing(_ call: String, from typicalSize: Int,
                             _ fill: (UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int) throws -> [UInt8] {
        var capacity = typicalSize
        while true {
            var length = 0
            // Not zeroed first: only the bytes the kernel wrote are kept.
            let bytes = try [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                length = try perform(call) { () throws(SystemCallError) in try fill(UnsafeMutableRawBufferPointer(buffer)) }
                initialized = length <= capacity ? length : 0
            }
            if length <= capacity { return bytes }
            capacity = length
        }
    }

    private static let typicalPublicPayload = 4096
    private static let typicalDescription = 512

    /// The payload of an item key in one call when it is no larger than `typicalSecret`: read
    /// into a scratch buffer that is zeroed before it is freed, then copied into zeroed-on-
    /// release storage. A larger one takes the two reads of `readSecret`.
    func readSecretOnce(_ key: key_serial_t) throws -> SecretBytes {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.typicalSecret, alignment: 1)
        defer {
            SecretBytes.zero(scratch)
            scratch.deallocate()
        }
        let length = try perform("keyctl_read") { () throws(SystemCallError) in try KernelKeyCalls.read(key, into: scratch) }
        guard length <= scratch.count else { return try readSecret(key) }
        return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<length]))
    }

    private static let typicalSecret = 1024

    /// The payload of an item key, read straight into zeroed-on-release storage so that no
    /// other copy of the secret is left in this process.
    func readSecret(_ key: key_serial_t) throws -> SecretBytes {
        var length = try perform("keyctl_read") { () throws(SystemCallError) in
            try KernelKeyCalls.read(key, into: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        }
        while true {
            var actual = 0
            let secret = try SecretBytes(count: length) { target in
                actual = try perform("keyctl_read") { () throws(SystemCallError) in try KernelKeyCalls.read(key, into: target) }
            }
            if actual == length { return secret }
            // The payload changed size between the two reads; `secret` is zeroed as it goes.
            length = actual
        }
    }
}
