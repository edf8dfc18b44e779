import CSodium
import Foundation

/// What the `file` backend must do at least, done directly: set is one XChaCha20-Poly1305 seal
/// plus write temp + fsync + rename + fsync of the directory; get is a read plus one open.
struct FileRawBaseline: RawBaseline {
    let getName = "read+xchacha20poly1305_open"
    let setName = "xchacha20poly1305_seal+write+fsync+rename+fsync(dir)"
    let directory: String

    private static let key: [UInt8] = {
        var key = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        crypto_aead_xchacha20poly1305_ietf_keygen(&key)
        return key
    }()
    private let plaintext = [UInt8](repeating: 0x5A, count: 32)

    init(directory: String) throws {
        guard sodium_init() >= 0 else { throw BaselineError(description: "sodium_init failed") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
    }

    private var path: String { directory + "/raw-item" }

    private func seal() -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES))
        randombytes_buf(&nonce, nonce.count)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES))
        var sealedLength: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(&sealed, &sealedLength, plaintext, UInt64(plaintext.count),
                                                       nil, 0, nil, nonce, Self.key)
        return nonce + sealed
    }

    let addName = "xchacha20poly1305_seal+write+fsync+rename+fsync(dir)"

    func addMany(_ count: Int) throws -> Double {
        defer { for index in 0..<count { unlink(directory + "/raw-\(index)") } }
        return try seconds { for index in 0..<count { try writeDurably(seal(), to: directory + "/raw-\(index)") } }
    }

    private func writeDurably(_ bytes: [UInt8], to path: String? = nil) throws {
        let path = path ?? self.path
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BaselineError(description: "open failed: errno \(errno)") }
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0, close(fd) == 0 else {
            throw BaselineError(description: "write/fsync failed: errno \(errno)")
        }
        guard rename(temporary, path) == 0 else { throw BaselineError(description: "rename failed: errno \(errno)") }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0, fsync(directoryFD) == 0, close(directoryFD) == 0 else {
            throw BaselineError(description: "fsync of the directory failed: errno \(errno)")
        }
    }

    func measureSet(iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations) { _ in try writeDurably(seal()) }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        try writeDurably(seal())
        var buffer = [UInt8](repeating: 0, count: 4096)
        var opened = [UInt8](repeating: 0, count: 4096)
        let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        return try LatencySample.measure(iterations: iterations) { _ in
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw BaselineError(description: "open failed: errno \(errno)") }
            let count = read(fd, &buffer, buffer.count)
            close(fd)
            guard count > nonceBytes else { throw BaselineError(description: "short read") }
            var openedLength: UInt64 = 0
            let status = buffer.withUnsafeBufferPointer { bytes in
                crypto_aead_xchacha20poly1305_ietf_decrypt(&opened, &openedLength, nil,
                                                           bytes.baseAddress! + nonceBytes, UInt64(count - nonceBytes),
                                                           nil, 0, bytes.baseAddress!, Self.key)
            }
            guard status == 0 else { throw BaselineError(description: "open of the sealed item failed") }
        }
    }
}
