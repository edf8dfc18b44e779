import CSecretService
import Dispatch
import Foundation
import KeychainCore
import Synchronization

/// The one thread in the process that calls libsecret.
///
/// libsecret's synchronous calls each push a private GLib main context on the calling thread,
/// and its proxies are bound to the context they were made in; keeping every call, and every
/// GLib object's whole life, on one thread makes that safe without reasoning about GLib's
/// locking. Callers from any thread hand in a job and wait for it, up to a deadline.
final class LibsecretWorker: @unchecked Sendable {
    static let shared = LibsecretWorker()

    /// Extra time a job gets to unwind after its GCancellable fired, before its caller gives up.
    static let cancellationGrace: Double = 1

    // `queue` and `thread` are guarded by `condition`; the unchecked Sendable relies on it.
    private let condition = NSCondition()
    private var queue: [LibsecretJob] = []
    private var thread: Thread?

    /// Runs `body` on the worker thread and returns its result.
    ///
    /// When `deadline` passes first, the job's GCancellable is cancelled, which makes the
    /// libsecret call in progress fail with a cancellation that `body` reports as a timeout;
    /// a job that has not started by then never starts. Only if the job still has not ended
    /// after a grace period does the caller stop waiting, with `timeoutError`, and leave the
    /// job to finish on its own. libsecret must be loaded before this is called.
    func perform<Value: Sendable>(deadline: DispatchTime, timeoutError: KeychainError,
                                  _ body: @escaping @Sendable (LibsecretCall) throws -> Value) throws -> Value {
        let outcome = LibsecretOutcome<Value>()
        let job = LibsecretJob(deadline: deadline) { call in
            outcome.store(Result { try body(call) })
        }
        submit(job)
        if job.finished.wait(timeout: deadline) == .timedOut {
            job.cancel()
            if job.finished.wait(timeout: .now() + Self.cancellationGrace) == .timedOut { throw timeoutError }
        }
        guard let result = outcome.result else { throw timeoutError }
        return try result.get()
    }

    /// Releases `objects` on the worker thread, where they were made, without waiting; for
    /// owners that go away on another thread.
    func release(_ objects: [GObjectReference]) {
        // The job holds the only references; it is dropped on the worker after it ran.
        submit(LibsecretJob(deadline: .distantFuture) { _ in withExtendedLifetime(objects) {} })
    }

    private func submit(_ job: LibsecretJob) {
        condition.withLock {
            queue.append(job)
            if thread == nil {
                let worker = Thread { [unowned self] in self.serve() }
                worker.name = "LinuxKeychain.libsecret"
                worker.stackSize = 1 << 20
                thread = worker
                worker.start()
            }
            condition.signal()
        }
    }

    private func serve() {
        while true {
            let job: LibsecretJob = condition.withLock {
                while queue.isEmpty { condition.wait() }
                return queue.removeFirst()
            }
            job.run()
        }
    }
}

/// What a job's body gets: the GCancellable to pass to every libsecret call, and the time left.
struct LibsecretCall: @unchecked Sendable {
    // A GCancellable, alive as long as the job; only passed to C, never dereferenced here.
    let cancellable: UnsafeMutableRawPointer
    let deadline: DispatchTime

    /// Milliseconds until the deadline, for GDBus's own per-call timeout (at least 1).
    var remainingMilliseconds: Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        let end = deadline.uptimeNanoseconds
        guard end > now else { return 1 }
        return Int32(clamping: max(1, (end - now) / 1_000_000))
    }
}

/// One unit of work for the worker, with its own GCancellable.
private final class LibsecretJob: @unchecked Sendable {
    let finished = DispatchSemaphore(value: 0)
    private let body: (LibsecretCall) -> Void
    private let call: LibsecretCall
    // `cancelled` and `started` are guarded by `lock`; the unchecked Sendable relies on it.
    private let lock = NSLock()
    private var cancelled = false
    private var started = false

    init(deadline: DispatchTime, body: @escaping (LibsecretCall) -> Void) {
        self.body = body
        // g_cancellable_new cannot fail; only a GLib that is not loaded could, and callers load first.
        self.call = LibsecretCall(cancellable: csecretservice_cancellable_new(), deadline: deadline)
    }

    deinit { csecretservice_object_unref(call.cancellable) }

    /// From the waiting caller's thread. g_cancellable_cancel is thread-safe.
    func cancel() {
        let running: Bool = lock.withLock {
            cancelled = true
            return started
        }
        if running { csecretservice_cancellable_cancel(call.cancellable) }
    }

    func run() {
        let skip: Bool = lock.withLock {
            started = true
            return cancelled
        }
        if !skip { body(call) }
        finished.signal()
    }
}

/// A job's result, written on the worker and read by the caller after `finished`.
private final class LibsecretOutcome<Value: Sendable>: Sendable {
    private let stored = Mutex<Result<Value, any Error>?>(nil)

    func store(_ result: Result<Value, any Error>) { stored.withLock { $0 = result } }
    var result: Result<Value, any Error>? { stored.withLock { $0 } }
}
