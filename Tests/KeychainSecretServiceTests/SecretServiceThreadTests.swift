import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The libsecret thread (`LibsecretActor`): who runs there, that callers are served however
    /// they block, and that the write lock ends with its job.
    @Suite("libsecret thread")
    struct LibsecretThreadTests {
        let backend = SecretServiceTestSupport.backend

        init() throws {
            try SecretServiceTestSupport.requireAvailable()
        }

        /// Jobs from different callers all run on one thread, the libsecret thread, which knows
        /// it; no caller's thread is it.
        @Test func jobsRunOnTheLibsecretThreadOnly() throws {
            let backend = self.backend
            let seen = Locked<[(caller: pthread_t, job: pthread_t, isolated: Bool?)]>([])
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let job = try backend.perform("a thread check", isReadOnly: true) { _ in
                        (pthread_self(), LibsecretThread.shared.isIsolatingCurrentContext())
                    }
                    let caller = pthread_self()
                    let callerIsolated = LibsecretThread.shared.isIsolatingCurrentContext()
                    if callerIsolated != false { failures.withLock { $0.append("a caller's thread counted as the libsecret thread") } }
                    seen.withLock { $0.append((caller, job.0, job.1)) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            let problems = failures.withLock { $0 }
            #expect(problems.isEmpty, "\(problems)")
            let runs = seen.withLock { $0 }
            #expect(runs.count == 4)
            #expect(Set(runs.map(\.job)).count == 1, "jobs ran on several threads")
            #expect(runs.allSatisfy { pthread_equal($0.caller, $0.job) == 0 }, "a job ran on its caller's thread")
            #expect(runs.allSatisfy { $0.isolated == true }, "the libsecret thread did not know itself")
        }

        /// Synchronous calls made from many tasks at once, which occupy every thread of Swift's
        /// cooperative pool while they wait, are all answered: the jobs they wait for run on
        /// the libsecret thread, not on the pool they block.
        @Test func callersBlockingTheCooperativePoolAreServed() async throws {
            let service = SecretServiceTestSupport.uniqueName("pool")
            defer { _ = try? backend.delete(exactQuery(service, "pooled", secrets: false)) }
            try backend.add(genericItem(service, "pooled", Data("p".utf8)))
            let callers = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
            let backend = self.backend
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<callers {
                    group.addTask {
                        do {
                            let read = try SecretServiceTestSupport.secret(service, "pooled", in: backend)
                            return read == Data("p".utf8) ? nil : "caller \(index) read other bytes"
                        } catch {
                            return "caller \(index): \(error)"
                        }
                    }
                }
                var failures: [String] = []
                for try await failure in group { if let failure { failures.append(failure) } }
                return failures
            }
            #expect(failures.isEmpty, "\(failures)")
        }

        /// When an add or update returns, the per-user write lock is already free: the job
        /// releases it before its caller is woken, so the caller's next write, or another
        /// process's, never waits for the job to be torn down.
        @Test func writeLockIsFreeOnceAWriteReturns() throws {
            let service = SecretServiceTestSupport.uniqueName("lock")
            defer { _ = try? backend.delete(exactQuery(service, "locked", secrets: false)) }
            try backend.add(genericItem(service, "locked", Data("0".utf8)))
            for round in 1...20 {
                _ = try backend.update(exactQuery(service, "locked", secrets: false),
                                       with: ItemChanges(secret: SecretBytes(Data("\(round)".utf8))))
                #expect(try Self.writeLockIsFree(for: backend), "round \(round): the write lock was still held after update returned")
            }
        }

        /// A write whose caller gave up before its job could start (the libsecret thread was
        /// busy with another job) holds the write lock no longer: that job never runs, so other
        /// writers, in this process or another, must not wait for the busy thread to reach it.
        @Test func writeLockIsFreeOnceACallerGaveUpOnAJobThatNeverStarted() throws {
            var environment = ProcessInfo.processInfo.environment
            environment[SecretServiceSettings.timeoutVariable] = "0.3"
            let impatient = SecretServiceBackend(settings: SecretServiceSettings(environment: environment))
            // Occupies the libsecret thread for longer than the impatient caller waits (its
            // timeout plus the grace), without touching libsecret.
            let busy = DispatchSemaphore(value: 0)
            let blockerDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = try? LibsecretWorker.perform(deadline: .now() + 10,
                                                 timeoutError: SecretServiceErrors.timedOut(10, "a busy job")) { _ in
                    busy.signal()
                    usleep(2_500_000)
                    return 0
                }
                blockerDone.signal()
            }
            busy.wait()
            defer { blockerDone.wait() }
            var thrown: KeychainError?
            do {
                _ = try impatient.perform("a queued write", holdingWriteLock: true) { _ in 1 }
            } catch let error as KeychainError {
                thrown = error
            }
            #expect(thrown != nil, "the queued write did not time out")
            #expect(try Self.writeLockIsFree(for: impatient), "the write lock was still held for a job that will never start")
        }

        /// Whether the per-user write lock `backend` takes is free now (taken and let go at once).
        static func writeLockIsFree(for backend: SecretServiceBackend) throws -> Bool {
            let path = SecretServiceWriteLock.directory(runtimeDirectory: backend.settings.runtimeDirectory)
                + "/" + SecretServiceWriteLock.fileName
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw KeychainError(errSecIO, "the lock file \(path) could not be opened") }
            defer { close(descriptor) }
            let taken = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            if taken { flock(descriptor, LOCK_UN) }
            return taken
        }
    }
}
