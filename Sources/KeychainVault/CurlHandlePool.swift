import CCurl
import Synchronization

/// One libcurl easy handle, with the connections it keeps alive.
///
/// libcurl lets an easy handle pass from thread to thread as long as one thread at a time uses
/// it; `CurlHandlePool` hands each handle to one request at a time and takes it back after.
/// That hand-over is what the unchecked Sendable relies on; the pointer is only passed to C.
struct CurlEasyHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// The idle easy handles of one client, kept so that one server's requests reuse their
/// connections. libcurl must be loaded before a handle is taken.
final class CurlHandlePool: Sendable {
    /// How many idle handles (each with its connections) are kept for reuse.
    static let maximumIdleHandles = 8

    private let idle = Mutex<[CurlEasyHandle]>([])

    deinit {
        for handle in idle.withLock({ $0 }) { ccurl_handle_free(handle.pointer) }
    }

    /// An idle handle, or a new one; nil only when libcurl cannot make one.
    func take() -> CurlEasyHandle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return ccurl_handle_new().map(CurlEasyHandle.init)
    }

    /// Takes `handle` back for reuse, or frees it when enough are idle already.
    func giveBack(_ handle: CurlEasyHandle) {
        let kept = idle.withLock { idle in
            guard idle.count < Self.maximumIdleHandles else { return false }
            idle.append(handle)
            return true
        }
        if !kept { ccurl_handle_free(handle.pointer) }
    }
}
