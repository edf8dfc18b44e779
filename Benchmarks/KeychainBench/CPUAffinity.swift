import CCPUAffinity

/// scripts/bench.sh pins keychain-bench to one CPU, which steadies its in-process rows. Whole
/// processes are timed as users run them instead: free to use every CPU, as `secret-tool` and
/// `linux-keychain` each run their bus I/O on a thread of their own (docs/performance.md).
enum CPUAffinity {
    /// Runs `body` with the calling thread, and so the processes it starts, allowed on every
    /// online CPU; the thread's own mask is restored afterwards. Where the mask cannot be read
    /// or widened, `body` runs as it is.
    static func onEveryCPU<Result>(_ body: () throws -> Result) rethrows -> Result {
        var saved = CCPUAffinityMask()
        let widened = ccpuaffinity_widen(&saved) == 0
        defer { if widened { _ = ccpuaffinity_restore(&saved) } }
        return try body()
    }
}
