package import Dispatch
package import KeychainSystemCalls

extension UserLockFile {
    /// One gate per lock file path, shared by every `UserLockFile` value naming it.
    private static let gates = FIFOGates<String>()

    /// Takes the lock with this process's threads in line (`FIFOGate`): only the thread at the
    /// head of the line waits for the `flock`, so `timeout` counts from a thread's turn rather
    /// than from its call, and the returned deadline (the turn plus `timeout`) is what the rest
    /// of its call should keep. Times out in line only when the line has not moved for twice
    /// `timeout`: a holder keeps it at most its own call's time, plus a moment to unwind.
    package func acquireInTurn(timeout seconds: Double) throws(Failure) -> (lock: HeldLock, deadline: DispatchTime) {
        let gate = Self.gates.gate(for: path)
        guard gate.enter(stalledAfter: 2 * seconds) else { throw .timedOut }
        let deadline = DispatchTime.now() + seconds
        do {
            return (try acquire(deadline: deadline, whenReleased: gate.leave), deadline)
        } catch {
            gate.leave()
            throw error
        }
    }
}
