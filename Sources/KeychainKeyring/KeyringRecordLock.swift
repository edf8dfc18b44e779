import CKeyutils
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import KeychainCore

/// Placeholder until the reviewed lock lands: the same protocol, without thread-local reuse.
struct KeyringRecordLock: Sendable {
    let kernel: KernelKeys

    init(kernel: KernelKeys) { self.kernel = kernel }

    static func lockDescription(_ target: key_serial_t) -> String { "linux-keychain:lock:\(target)" }

    func withLock<Result>(in target: key_serial_t, _ body: () throws -> Result) throws -> Result {
        let thread = try kernel.serial(of: KernelKeys.threadKeyring, create: true)
        let key = try Data(String(thread).utf8).withUnsafeBytes {
            try kernel.addUserKey(Self.lockDescription(target), payload: $0, to: KernelKeys.threadKeyring)
        }
        try kernel.setPermissions(key, ItemKeyrings.permissions)
        var attempt = 0
        while true {
            do {
                try kernel.move(key, from: KernelKeys.threadKeyring, to: target, exclusive: true)
                break
            } catch let failure as KeyctlFailure where failure.code == EEXIST {
                attempt += 1
                if attempt > 20000 {
                    try? kernel.unlink(key, from: KernelKeys.threadKeyring)
                    throw KeychainError.keyring(errSecIO, "Another process holds \(Self.lockDescription(target)).")
                }
                if let holder = try? kernel.search(target, type: "user", description: Self.lockDescription(target)),
                   let payload = try? kernel.readPublicPayload(holder),
                   let serial = key_serial_t(String(decoding: payload, as: UTF8.self)) {
                    do {
                        _ = try kernel.describe(serial)
                    } catch let failure as KeyctlFailure where failure.isNoSuchKey {
                        try? kernel.unlink(holder, from: target)
                        continue
                    } catch {}
                }
                usleep(useconds_t(min(1000, 20 * attempt)))
            }
        }
        defer { try? kernel.unlink(key, from: target) }
        return try body()
    }
}
