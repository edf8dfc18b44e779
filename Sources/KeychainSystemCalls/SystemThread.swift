#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Threads and sleeps straight from pthreads, for the modules that run without Foundation
/// (the CLI's closure: its start-up is measured against `secret-tool`'s, docs/performance.md).
package enum SystemThread {
    /// Runs `body` on a new detached thread, named `name` (at most 15 bytes show in `ps`) with a
    /// stack of `stackSize` bytes when given. Throws `SystemCallError` when no thread could be made.
    package static func start(name: String? = nil, stackSize: Int? = nil,
                              _ body: @escaping @Sendable () -> Void) throws {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let box = Unmanaged.passRetained(ThreadBody(name: name, body: body))
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, runThreadBody, box.toOpaque())
        if status != 0 {
            box.release()
            throw SystemCallError(call: "pthread_create", errno: Errno(rawValue: status))
        }
    }

    /// Sleeps for `duration`, the rest of it again after a signal.
    package static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// What `ps -L` and `top -H` show for the calling thread: its comm, through /proc, as
    /// `pthread_setname_np` (a GNU extension Swift does not import) sets it. Best effort.
    fileprivate static func nameThisThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    fileprivate final class ThreadBody {
        let name: String?
        let body: @Sendable () -> Void

        init(name: String?, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}

/// The new thread's entry: takes the body `SystemThread.start` passed, names the thread, runs it.
private func runThreadBody(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let body = Unmanaged<SystemThread.ThreadBody>.fromOpaque(context).takeRetainedValue()
    if let name = body.name { SystemThread.nameThisThread(name) }
    body.body()
    return nil
}
