import KeychainCore
import CCurl
import Glibc

/// A libcurl lane (a multi handle, which holds the open connections) and the easy handles that
/// run requests on it: what one request, or one set of requests sent side by side, takes.
///
/// libcurl lets these pass from thread to thread as long as one thread at a time uses them;
/// `CurlLanePool` hands each lane to one caller at a time and takes it back after. That
/// hand-over is what the unchecked Sendable relies on; the pointers are only passed to C.
struct CurlLane: @unchecked Sendable {
    let multi: UnsafeMutableRawPointer
    fileprivate(set) var handles: [UnsafeMutableRawPointer]
    /// The process that made it, and so owns its connection.
    fileprivate let process: pid_t
}

/// The idle lanes of one client, kept so that one server's requests reuse their connections:
/// a lane's connection stays open between requests, whether they travel alone or side by
/// side, so a process that makes a few requests in a row pays for one TCP and TLS handshake.
/// libcurl must be loaded before a lane is taken.
///
/// After `fork` the child inherits the idle lanes, but their connections are the parent's (the
/// same sockets, and over TLS the same session state), which the parent goes on using. The
/// child therefore neither uses them nor frees them (freeing would end the parent's TLS
/// session with a close_notify on the shared socket): it leaves them, and makes lanes of its own.
final class CurlLanePool: Sendable {
    /// How many idle lanes (each with its connection) are kept for reuse; more are made when
    /// more threads send at once.
    static let maximumIdleLanes = 8

    private let idle = Locked<[CurlLane]>([])

    deinit {
        let process = getpid()
        for lane in idle.withLock({ $0 }) where lane.process == process { Self.free(lane) }
    }

    /// An idle lane, or a new one, with at least `handleCount` easy handles; nil only when
    /// libcurl cannot make one.
    func take(handleCount: Int) -> CurlLane? {
        let process = getpid()
        let reused = idle.withLock { idle in
            // Lanes inherited through fork are dropped, unfreed.
            idle.removeAll { $0.process != process }
            return idle.popLast()
        }
        guard var lane = reused ?? ccurl_lane_new().map({ CurlLane(multi: $0, handles: [], process: process) }) else {
            return nil
        }
        while lane.handles.count < handleCount {
            guard let handle = ccurl_handle_new() else {
                giveBack(lane)
                return nil
            }
            lane.handles.append(handle)
        }
        return lane
    }

    /// Takes `lane` back for reuse, or frees it when enough are idle already.
    func giveBack(_ lane: CurlLane) {
        guard lane.process == getpid() else { return }
        let kept = idle.withLock { idle in
            guard idle.count < Self.maximumIdleLanes else { return false }
            idle.append(lane)
            return true
        }
        if !kept { Self.free(lane) }
    }

    private static func free(_ lane: CurlLane) {
        ccurl_lane_free(lane.multi)
        for handle in lane.handles { ccurl_handle_free(handle) }
    }
}
