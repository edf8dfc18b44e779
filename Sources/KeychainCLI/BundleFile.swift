import CSodium
import FoundationEssentials
import Glibc
import KeychainCore
import KeychainSystemCalls

/// Writes and reads `linux-keychain export` bundles (`BundleFormat`): every item encrypted with
/// libsodium's crypto_secretstream under a key Argon2id derives from a passphrase.
///
/// Writing: the bundle goes to a new file beside FILE (mode 0600), flushed, then renamed to
/// FILE, so FILE is whole or absent. Reading: every message is decrypted and checked, the last
/// one included, before any item is returned, so a wrong passphrase, a truncated file or a
/// flipped byte imports nothing.
enum BundleFile {
    /// Writes `items` (each with its secret) to `path`, which must not exist yet.
    static func write(_ items: [KeychainItem], to path: String, passphrase: SecretBytes,
                      limits: (ops: UInt64, memory: UInt64), progress: (Int) -> Void) throws {
        guard sodium_init() >= 0 else { throw KeychainError(errSecInternalComponent, "libsodium could not start", failedCall: "sodium_init") }
        var salt = Data(count: BundleFormat.saltSize)
        salt.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        var header = BundleFormat.magic + Data([BundleFormat.version, BundleFormat.argon2id])
        header += BundleFormat.littleEndian(limits.ops) + BundleFormat.littleEndian(limits.memory) + salt
        let key = try BundleFormat.key(passphrase, salt: salt, ops: limits.ops, memory: limits.memory)
        var state = crypto_secretstream_xchacha20poly1305_state()
        defer { withUnsafeMutableBytes(of: &state) { SecretBytes.zero($0) } }
        var streamHeader = Data(count: BundleFormat.streamHeaderSize)
        key.withUnsafeBytes { keyBytes in
            streamHeader.withUnsafeMutableBytes {
                _ = crypto_secretstream_xchacha20poly1305_init_push(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                                   keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        header += streamHeader
        var file = header
        func push(_ plaintext: UnsafeRawBufferPointer, final: Bool) {
            let size = plaintext.count + Int(crypto_secretstream_xchacha20poly1305_abytes())
            file += BundleFormat.littleEndian(UInt32(size))
            var cipher = Data(count: size)
            cipher.withUnsafeMutableBytes { out in
                header.withUnsafeBytes { ad in
                    _ = crypto_secretstream_xchacha20poly1305_push(
                        &state, out.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                        plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                        ad.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ad.count),
                        final ? crypto_secretstream_xchacha20poly1305_tag_final() : crypto_secretstream_xchacha20poly1305_tag_message())
                }
            }
            file += cipher
        }
        for (index, item) in items.enumerated() {
            let plaintext = BundleItemCoding.encode(item)
            // A reader refuses larger messages, so a bundle holding one could never be imported.
            guard plaintext.count <= BundleFormat.maximumMessage else {
                throw KeychainError(errSecDataTooLarge, "the item with \(item.primaryKey.readableName) is larger than a bundle holds (\(BundleFormat.maximumMessage) bytes); nothing was written")
            }
            plaintext.withUnsafeBytes { push($0, final: false) }
            progress(index + 1)
        }
        (BundleFormat.endMarker + BundleFormat.littleEndian(UInt64(items.count))).withUnsafeBytes { push($0, final: true) }
        try replaceWhole(path, with: file)
    }

    /// Every item in the bundle at `path`; see the type's contract for what is refused.
    static func read(_ path: String, passphrase: SecretBytes) throws -> [KeychainItem] {
        guard sodium_init() >= 0 else { throw KeychainError(errSecInternalComponent, "libsodium could not start", failedCall: "sodium_init") }
        guard let file = FileManager.default.contents(atPath: path) else {
            throw KeychainError.badParameter("could not read the bundle \(path)")
        }
        let notABundle = KeychainError(errSecDecode, "\(path) is not a keychain bundle (made by 'linux-keychain export'); nothing was imported")
        guard file.count >= BundleFormat.headerSize, file.prefix(8) == BundleFormat.magic else { throw notABundle }
        let version = file[file.startIndex + 8]
        guard version == BundleFormat.version, file[file.startIndex + 9] == BundleFormat.argon2id else {
            throw KeychainError(errSecDecode, "the bundle \(path) is of format version \(version), which this keychain cannot read; nothing was imported")
        }
        let ops = BundleFormat.uint64(file, at: 10), memory = BundleFormat.uint64(file, at: 18)
        guard BundleFormat.acceptsLimits(ops: ops, memory: memory) else {
            throw KeychainError(errSecDecode, "the bundle \(path) asks for Argon2id limits out of range (\(ops) passes, \(memory >> 20) MiB); it is damaged, or not made by keychain; nothing was imported")
        }
        let header = Data(file.prefix(BundleFormat.headerSize))
        let key = try BundleFormat.key(passphrase, salt: header.subdata(in: 26..<42), ops: ops, memory: memory)
        var state = crypto_secretstream_xchacha20poly1305_state()
        defer { withUnsafeMutableBytes(of: &state) { SecretBytes.zero($0) } }
        let started = key.withUnsafeBytes { keyBytes in
            header.withUnsafeBytes {
                crypto_secretstream_xchacha20poly1305_init_pull(&state, $0.baseAddress!.assumingMemoryBound(to: UInt8.self) + 42,
                                                               keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard started == 0 else { throw notABundle }
        var items: [KeychainItem] = []
        var offset = BundleFormat.headerSize
        let abytes = Int(crypto_secretstream_xchacha20poly1305_abytes())
        func truncated() -> KeychainError {
            KeychainError(errSecDecode, "the bundle \(path) is truncated (it ends after \(items.count) items, before its end mark); nothing was imported")
        }
        while true {
            guard file.count - offset >= 4 else { throw truncated() }
            let size = Int(BundleFormat.uint32(file, at: offset))
            offset += 4
            guard size >= abytes, size <= BundleFormat.maximumMessage + abytes else {
                throw KeychainError(errSecDecode, "the bundle \(path) is damaged after \(items.count) items; nothing was imported")
            }
            guard file.count - offset >= size else { throw truncated() }
            var tag: UInt8 = 0
            let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: size - abytes + 1, alignment: 1)
            defer { SecretBytes.zero(plaintext); plaintext.deallocate() }
            let status = file.withUnsafeBytes { bytes in
                header.withUnsafeBytes { ad in
                    crypto_secretstream_xchacha20poly1305_pull(
                        &state, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, &tag,
                        bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset, UInt64(size),
                        ad.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ad.count))
                }
            }
            offset += size
            guard status == 0 else {
                if items.isEmpty {
                    throw KeychainError(errSecAuthFailed, "wrong passphrase for the bundle \(path), or the bundle is damaged; nothing was imported")
                }
                throw KeychainError(errSecDecode, "the bundle \(path) is damaged after \(items.count) items (it fails authentication); nothing was imported")
            }
            let message = UnsafeRawBufferPointer(rebasing: plaintext[0..<(size - abytes)])
            if tag == crypto_secretstream_xchacha20poly1305_tag_final() {
                guard message.count == 12, Data(message.prefix(4)) == BundleFormat.endMarker,
                      BundleFormat.uint64(Data(message), at: 4) == UInt64(items.count), offset == file.count else {
                    throw KeychainError(errSecDecode, "the bundle \(path) is damaged at its end mark; nothing was imported")
                }
                return items
            }
            items.append(try BundleItemCoding.decode(message))
        }
    }

    /// `path` made to hold exactly `data`: written to a new file beside it, flushed, renamed.
    private static func replaceWhole(_ path: String, with data: Data) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw KeychainError.badParameter("\(path) already exists; remove it or choose another file name")
        }
        let temporary = "\(path).\(getpid()).tmp"
        do {
            let descriptor = try syscall("open") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
            var written = 0
            defer { close(descriptor) }
            try data.withUnsafeBytes { bytes in
                while written < bytes.count {
                    written += try syscall("write") { Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written) }
                }
            }
            _ = try syscall("fsync") { fsync(descriptor) }
            _ = try syscall("rename") { rename(temporary, path) }
        } catch let error as SystemCallError {
            unlink(temporary)
            throw KeychainError(errSecIO, "could not write the bundle \(path): \(error.reason)", failedCall: error.call)
        }
    }
}
