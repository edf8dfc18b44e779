import FoundationEssentials
import Glibc
import Dispatch
import KeychainSystemCalls

/// Work on the indices `0..<count` run on several threads a window at a time, each result
/// delivered on the calling thread in index order once its window is done: progress in order
/// for work that mostly waits (a move into a server, `SideBySideWrites`).
enum WindowedWork {
    /// Runs `work` for every index on `width` threads (in the caller alone when `width` is 1),
    /// `window` indices at a time, and calls `deliver` with each index and result, in order.
    static func run<Result: Sendable>(count: Int, width: Int, window: Int, work: @escaping @Sendable (Int) -> Result,
                                      deliver: (Int, Result) -> Void) {
        guard width > 1 && count > 1 else {
            for index in 0..<count { deliver(index, work(index)) }
            return
        }
        var start = 0
        while start < count {
            let first = start, end = min(start + max(window, width), count)
            let results = Locked<[Result?]>(Array(repeating: nil, count: end - first))
            let next = Locked(first)
            // Threads of their own rather than Dispatch's pool, which keeps about one per core
            // busy and so would not send more requests at once than this machine has cores.
            let finished = DispatchSemaphore(value: 0)
            let threads = min(width, end - first)
            var started = 0
            for _ in 0..<threads {
                let made: ()? = try? SystemThread.start {
                    while case let index = next.withLock({ value -> Int in defer { value += 1 }; return value }), index < end {
                        let result = work(index)
                        results.withLock { $0[index - first] = result }
                    }
                    finished.signal()
                }
                if made != nil { started += 1 }
            }
            // No thread at all (the process is at its limit): the caller's own does the window.
            if started == 0 {
                for index in first..<end { results.withLock { $0[index - first] = work(index) } }
            }
            for _ in 0..<started { finished.wait() }
            for (offset, result) in results.withLock({ $0 }).enumerated() {
                if let result { deliver(first + offset, result) }
            }
            start = end
        }
    }
}
