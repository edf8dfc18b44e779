import CKeyutils
import Foundation

/// The kernel calls at the core of each operation, called directly on the keyring the
/// `keyring` backend uses (the session keyring when `KEYCHAIN_KEYRING=session`, as
/// `scripts/bench.sh` sets, else the user's persistent keyring, or the one given): get is
/// `keyctl_search` + `keyctl_read` of one `user` key, set a `keyctl_update` of it, miss a
/// `keyctl_search` of a name that is not there.
struct KeyringRawBaseline: RawBaseline {
    let getName = "keyctl_search+keyctl_read"
    let setName = "keyctl_update"
    let missName: String? = "keyctl_search (ENOKEY)"
    private let description = "keychain-bench-raw-\(ProcessInfo.processInfo.processIdentifier)"
    private let payload = [UInt8](repeating: 0x5A, count: 32)
    /// Forces the persistent keyring whatever the environment says.
    let persistent: Bool

    init(persistent: Bool = false) {
        self.persistent = persistent
    }

    private func keyring() throws -> key_serial_t {
        if !persistent, ProcessInfo.processInfo.environment["KEYCHAIN_KEYRING"] == "session" {
            return KEY_SPEC_SESSION_KEYRING
        }
        let found = keyctl_get_persistent(UInt32.max, KEY_SPEC_PROCESS_KEYRING)
        if found >= 0 { return key_serial_t(found) }
        return KEY_SPEC_USER_KEYRING
    }

    private func store(in ring: key_serial_t) throws -> key_serial_t {
        let id = add_key("user", description, payload, payload.count, ring)
        guard id >= 0 else { throw BaselineError(description: "add_key failed: errno \(errno)") }
        return id
    }

    func measureSet(iterations: Int) throws -> LatencySample {
        let ring = try keyring()
        let key = try store(in: ring)
        defer { unlinkBaselineKey(from: ring) }
        return try LatencySample.measure(iterations: iterations) { _ in
            guard keyctl_update(key, payload, payload.count) == 0 else {
                throw BaselineError(description: "keyctl_update failed: errno \(errno)")
            }
        }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        let ring = try keyring()
        _ = try store(in: ring)
        defer { unlinkBaselineKey(from: ring) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        return try LatencySample.measure(iterations: iterations) { _ in
            let id = keyctl_search(ring, "user", description, 0)
            guard id >= 0 else { throw BaselineError(description: "keyctl_search failed: errno \(errno)") }
            let read = buffer.withUnsafeMutableBytes { keyctl_read(key_serial_t(id), $0.baseAddress, $0.count) }
            guard read == payload.count else { throw BaselineError(description: "keyctl_read returned \(read)") }
        }
    }

    func measureMiss(iterations: Int) throws -> LatencySample? {
        let ring = try keyring()
        return try LatencySample.measure(iterations: iterations) { _ in
            guard keyctl_search(ring, "user", description + "-absent", 0) < 0, errno == ENOKEY else {
                throw BaselineError(description: "keyctl_search of a missing name did not fail with ENOKEY")
            }
        }
    }

    let addName = "add_key"

    /// The keys go to a keyring of their own, linked into the usual one, whose unlink frees them.
    func addMany(_ count: Int) throws -> Double {
        let bundle = add_key("keyring", description + "-bundle", nil, 0, try keyring())
        guard bundle >= 0 else { throw BaselineError(description: "add_key of a keyring failed: errno \(errno)") }
        defer { _ = keyctl_unlink(bundle, try! keyring()) }
        return try seconds {
            for index in 0..<count {
                guard add_key("user", "\(description)-\(index)", payload, payload.count, bundle) >= 0 else {
                    throw BaselineError(description: "add_key failed: errno \(errno)")
                }
            }
        }
    }

    private func unlinkBaselineKey(from ring: key_serial_t) {
        let id = keyctl_search(ring, "user", description, 0)
        if id >= 0 { _ = keyctl_unlink(key_serial_t(id), ring) }
    }
}
