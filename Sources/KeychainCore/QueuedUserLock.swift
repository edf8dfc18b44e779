package import Dispatch
package import KeychainSystemCalls

extension UserLockFile {
    /// One gate per lock file path, shared by every `UserLockFile` value naming it.
    private static let gates = FIFOGates<String>()

    /// Takes the lock with this process's threads in line (`FIFOGate`): only the thread at the
    /// head of the line waits for the `flock`, which times out only when no holder let go for
    /// `timeout` (`acquire(patience:)`: other processes' turns do not count against it), and the
    /// returned deadline (the moment the lock was taken plus `timeout`) is what the rest of its
    /// call should keep. Times out in line only when neither the line nor the lock has moved
    /// for twice `timeout`: a holder keeps it at most its own call's time, plus a moment to unwind.
    package func acquireInTurn(timeout seconds: Double) throws(Failure) -> (lock: HeldLock, deadline: DispatchTime) {
        let gate = Self.gates.gate(for: path)
        guard gate.enter(stalledAfter: 2 * seconds) else { throw .timedOut }
        do {
            let lock = try acquire(patience: seconds, progressed: gate.noteProgress, whenReleased: gate.leave)
            return (lock, DispatchTime.now() + seconds)
        } catch {
            gate.leave()
            throw error
        }
    }
}
