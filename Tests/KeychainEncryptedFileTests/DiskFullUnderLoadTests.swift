import Foundation
@testable import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The file store's disk fills up while a thread pool uses it (#29 goal 6). The store lies on a
/// small tmpfs of its own, which a filler file fills and then frees again.
@Suite("file store whose disk fills under load")
struct DiskFullUnderLoadTests {
    @Test func callsFailWithDiskFullThenRecoverAndNoAcknowledgedWriteIsLost() throws {
        let disk = try SmallDisk()
        defer { disk.remove() }
        let backend = EncryptedFileBackend(settings: FileStoreSettings(
            directory: disk.path + "/store", passphrase: .given(SecretBytes(Data("disk-full-test".utf8))),
            cacheLifetime: 0, kdf: .minimum))
        // A refused write leaves the old file in place: nothing of it lands.
        let refusal = FaultUnderLoad.Refusal(statuses: [errSecDiskFull], writeMayHaveLanded: false) { $0.contains("Free some space") }
        try FaultUnderLoad(backend: backend, refusal: refusal).run(service: "pool", fault: disk.fill, repair: disk.free)
    }
}

/// A tmpfs of a few MiB, mounted in the run's own mount namespace (scripts/with-services.sh),
/// that `fill()` fills with a file and `free()` empties again.
private struct SmallDisk {
    let path: String
    var filler: String { path + "/filler" }

    init() throws {
        guard ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_IN_SERVICES"] == "1" else {
            try skipOrFail("mounts a small tmpfs: run inside scripts/with-services.sh, whose mount namespace is the run's own")
        }
        path = try makeScratchDirectory("lkc-small-disk").path
        guard mount("tmpfs", path, "tmpfs", 0, "size=8m,mode=0700") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            try skipOrFail("cannot mount a tmpfs for the full disk (\(reason)): needs root in the run's namespace")
        }
    }

    /// Writes the filler until the disk refuses a byte more.
    func fill() throws {
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0, "cannot create the filler: \(String(cString: strerror(errno)))")
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 4096)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
        try #require(errno == ENOSPC, "the filler stopped with \(String(cString: strerror(errno))), not ENOSPC")
    }

    func free() { unlink(filler) }

    func remove() {
        umount2(path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: path)
    }
}
