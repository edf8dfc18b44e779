import Dispatch

/// Lets the threads of one process through one at a time, in the order they arrived, handing
/// the turn straight from the thread that leaves to the next in line.
///
/// Threads that each poll a lock win it at random, so under many threads some wait far longer
/// than the rest; a queue bounds each one's wait by the work ahead of it. A waiter gives up
/// only when the gate has not moved for the time it was given: whoever is inside is stuck.
package final class FIFOGate: Sendable {
    private struct State {
        var occupied = false
        var queue: [DispatchSemaphore] = []
        /// When a thread last went in (or said it progressed), to tell a stuck gate from a long queue.
        var lastEntry = DispatchTime.now()
    }

    private let state = Locked(State())

    package init() {}

    /// Waits for this thread's turn. Returns false, out of the queue, if no thread went in
    /// (nor did the one inside `noteProgress()`) for `stalledAfter` seconds while it waited.
    /// Each true must be followed by `leave()`.
    package func enter(stalledAfter seconds: Double) -> Bool {
        let turn = DispatchSemaphore(value: 0)
        let waits = state.withLock { state in
            guard state.occupied else {
                state.occupied = true
                state.lastEntry = .now()
                return false
            }
            state.queue.append(turn)
            return true
        }
        guard waits else { return true }
        while turn.wait(timeout: .now() + seconds) == .timedOut {
            let gaveUp = state.withLock { state in
                // Not in the queue: the turn was handed over just now, and the wait returns at once.
                guard let index = state.queue.firstIndex(where: { $0 === turn }) else { return false }
                guard DispatchTime.now().uptimeNanoseconds - state.lastEntry.uptimeNanoseconds >= UInt64(seconds * 1e9) else {
                    return false
                }
                state.queue.remove(at: index)
                return true
            }
            if gaveUp { return false }
        }
        return true
    }

    /// Tells the line that the thread inside is waiting on something that moves (other
    /// processes taking turns at a lock), so that the threads behind it do not give up as if
    /// it were stuck.
    package func noteProgress() {
        state.withLock { $0.lastEntry = .now() }
    }

    /// Threads waiting in line now.
    package var waiting: Int { state.withLock { $0.queue.count } }

    /// Hands the turn to the next thread in line, or opens the gate.
    package func leave() {
        state.withLock { state in
            guard !state.queue.isEmpty else {
                state.occupied = false
                return
            }
            state.lastEntry = .now()
            state.queue.removeFirst().signal()
        }
    }
}

extension FIFOGate {
    /// Runs `body` in this thread's turn (`enter(stalledAfter:)`), or throws `stalled()` when
    /// the line did not move for `seconds`.
    package func withTurn<Value>(stalledAfter seconds: Double, orThrow stalled: () -> any Error,
                                 _ body: () throws -> Value) throws -> Value {
        guard enter(stalledAfter: seconds) else { throw stalled() }
        defer { leave() }
        return try body()
    }
}

/// One `FIFOGate` per key (a lock file's path, a keyring's serial), made at first use and kept
/// for the life of the process.
package final class FIFOGates<Key: Hashable & Sendable>: Sendable {
    private let gates = Locked<[Key: FIFOGate]>([:])

    package init() {}

    /// The gate of `key`.
    package func gate(for key: Key) -> FIFOGate {
        gates.withLock { gates in
            if let gate = gates[key] { return gate }
            let made = FIFOGate()
            gates[key] = made
            return made
        }
    }
}
