import CSecretService
import Dispatch
import KeychainCore
import KeychainSystemCalls

/// Hands jobs to the libsecret thread (`LibsecretActor`) from synchronous callers on any
/// thread, and waits for each up to a deadline.
enum LibsecretWorker {
    /// Extra time a job gets to unwind after its GCancellable fired, before its caller gives up.
    static let cancellationGrace: Double = 1

    /// Runs `body` on the libsecret thread and returns its result.
    ///
    /// When `deadline` passes first, the job's GCancellable is cancelled, which makes the
    /// libsecret call in progress fail with a cancellation that `body` reports as a timeout;
    /// a job that has not started by then never starts. Only if the job still has not ended
    /// after a grace period does the caller stop waiting, with `timeoutError`, and leave the
    /// job to finish on its own. libsecret must be loaded before this is called.
    ///
    /// `lock`, when given, is held exactly as long as the job lives: released when `body` ends,
    /// whether it returned or threw and before the caller is woken, or, for a job that will
    /// never start, as soon as it is cancelled.
    static func perform<Value: Sendable>(deadline: DispatchTime, timeoutError: KeychainError, holding lock: HeldLock? = nil,
                                         _ body: @escaping @LibsecretActor @Sendable (LibsecretCall) throws -> Value)
        throws -> Value {
        let job = LibsecretJob(deadline: deadline, lock: lock)
        let outcome = LibsecretOutcome<Value>()
        // A task isolated to the actor is enqueued straight on its executor, so it runs even
        // when every thread of Swift's cooperative pool is blocked in a call like this one.
        Task { @LibsecretActor in
            // After the caller is woken, before the next job: the signals the provider sent
            // meanwhile (for this job's writes, say), which would otherwise pile up.
            defer { csecretservice_signals_dispatch() }
            defer { job.finished.signal() }
            defer { job.lock?.release() }
            guard job.start() else { return }
            outcome.store(Result { try body(job.call) })
        }
        if job.finished.wait(timeout: deadline) == .timedOut {
            job.cancel()
            if job.finished.wait(timeout: .now() + cancellationGrace) == .timedOut { throw timeoutError }
        }
        guard let result = outcome.result else { throw timeoutError }
        return try result.get()
    }
}

/// What a job's body gets: the GCancellable to pass to every libsecret call, and the time left.
struct LibsecretCall: Sendable {
    let cancellation: GCancellableReference
    let deadline: DispatchTime

    /// The GCancellable, alive as long as the job; only passed to C, never dereferenced here.
    var cancellable: UnsafeMutableRawPointer { cancellation.pointer }

    /// Milliseconds until the deadline, for GDBus's own per-call timeout (at least 1).
    var remainingMilliseconds: Int32 {
        let now = DispatchTime.now().uptimeNanoseconds
        let end = deadline.uptimeNanoseconds
        guard end > now else { return 1 }
        return Int32(clamping: max(1, (end - now) / 1_000_000))
    }
}

/// A GCancellable, owned by Swift.
///
/// Unlike the other GLib objects here it is shared between threads, which GLib allows for
/// this type: `g_cancellable_cancel` may be called from any thread while another thread's
/// call watches it, and its reference count is atomic. That documented thread safety is
/// what the unchecked Sendable relies on; nothing else is done with the pointer.
final class GCancellableReference: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init() {
        // g_cancellable_new cannot fail; only a GLib that is not loaded could, and callers load first.
        pointer = csecretservice_cancellable_new()
    }

    deinit { csecretservice_object_unref(pointer) }

    func cancel() { csecretservice_cancellable_cancel(pointer) }
}

/// One unit of work for the libsecret thread, with its own GCancellable, and what its caller
/// and the thread know about it.
private final class LibsecretJob: Sendable {
    let finished = DispatchSemaphore(value: 0)
    let call: LibsecretCall
    /// Released when the job ends or is cancelled before it started; releasing twice is harmless.
    let lock: HeldLock?

    private struct Progress {
        var started = false
        var cancelled = false
    }

    private let progress = Locked(Progress())

    init(deadline: DispatchTime, lock: HeldLock?) {
        call = LibsecretCall(cancellation: GCancellableReference(), deadline: deadline)
        self.lock = lock
    }

    /// From the waiting caller's thread. Cancels the call in progress, or keeps the job from
    /// starting, in which case its lock is released now: the job is over, though the libsecret
    /// thread has yet to reach it.
    func cancel() {
        let running = progress.withLock { progress in
            progress.cancelled = true
            return progress.started
        }
        if running { call.cancellation.cancel() } else { lock?.release() }
    }

    /// On the libsecret thread, before the body runs: whether it may, which it may not once cancelled.
    func start() -> Bool {
        progress.withLock { progress in
            progress.started = true
            return !progress.cancelled
        }
    }
}

/// A job's result, written on the libsecret thread and read by the caller after `finished`.
private final class LibsecretOutcome<Value: Sendable>: Sendable {
    private let stored = Locked<Result<Value, any Error>?>(nil)

    func store(_ result: Result<Value, any Error>) { stored.withLock { $0 = result } }
    var result: Result<Value, any Error>? { stored.withLock { $0 } }
}
