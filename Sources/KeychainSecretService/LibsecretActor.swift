import KeychainCore
import FoundationEssentials
import Glibc
import Dispatch
import KeychainSystemCalls

/// The isolation of everything that touches libsecret or GLib objects: the connection, the
/// session, every `ServiceHandle` and the operations that use them.
///
/// libsecret's synchronous calls each push a private GLib main context on the calling thread,
/// and its proxies are bound to the context they were made in. Keeping every call, and every
/// GLib object's whole life, on one thread makes that safe without reasoning about GLib's
/// locking; as a global actor whose executor is that one thread (`LibsecretThread`), the
/// compiler refuses any use of those objects from anywhere else.
@globalActor
actor LibsecretActor {
    static let shared = LibsecretActor()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        LibsecretThread.shared.asUnownedSerialExecutor()
    }
}

/// The one thread in the process that calls libsecret, as a serial executor: jobs run one at a
/// time, in the order they were enqueued, on a dedicated thread started at the first job.
///
/// A dedicated thread rather than Swift's cooperative pool: a caller blocked in a synchronous
/// SecItem call may be occupying a pool thread, and the job it waits for must still run.
final class LibsecretThread: SerialExecutor, Sendable {
    static let shared = LibsecretThread()

    private struct Queue {
        var jobs: [UnownedJob] = []
        var threadStarted = false
        /// Set by the thread itself once it runs.
        var threadID: pthread_t?
    }

    private let queue = Locked(Queue())
    /// Counts the jobs enqueued and not yet taken, so the thread sleeps while there are none.
    private let pending = DispatchSemaphore(value: 0)

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let startThread: Bool = queue.withLock { queue in
            queue.jobs.append(job)
            defer { queue.threadStarted = true }
            return !queue.threadStarted
        }
        if startThread { start() }
        pending.signal()
    }

    private func start() {
        do {
            try SystemThread.start(name: "LinuxKeychain.libsecret", stackSize: 1 << 20) { [self] in
                queue.withLock { $0.threadID = pthread_self() }
                serve()
            }
        } catch {
            // The jobs queued meanwhile end at their deadlines, with their timeout errors; the
            // next job tries again.
            queue.withLock { $0.threadStarted = false }
        }
    }

    private func serve() -> Never {
        while true {
            pending.wait()
            let job = queue.withLock { $0.jobs.removeFirst() }
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }

    /// Whether the caller runs on the worker thread; what the runtime asks before it trusts a
    /// synchronous call to be isolated to `LibsecretActor`.
    func isIsolatingCurrentContext() -> Bool? {
        let current = pthread_self()
        return queue.withLock { queue in queue.threadID.map { pthread_equal($0, current) != 0 } ?? false }
    }

    func checkIsolated() {
        precondition(isIsolatingCurrentContext() == true, "libsecret used off the LinuxKeychain.libsecret thread")
    }
}
