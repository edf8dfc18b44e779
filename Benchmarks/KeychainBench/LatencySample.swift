import Foundation

/// Timings of one operation, in microseconds, and the figures the report shows.
struct LatencySample {
    let microseconds: [Double]

    /// Runs `body` `iterations` times after `warmup` untimed runs. `prepare` runs before each
    /// timed call, outside the timing (for example to put back the item a delete removed).
    static func measure(iterations: Int, warmup: Int = 3, prepare: (Int) throws -> Void = { _ in },
                        _ body: (Int) throws -> Void) rethrows -> LatencySample {
        for index in 0..<warmup {
            try prepare(-1 - index)
            try body(-1 - index)
        }
        var timings: [Double] = []
        timings.reserveCapacity(iterations)
        for index in 0..<iterations {
            try prepare(index)
            let start = DispatchTime.now().uptimeNanoseconds
            try body(index)
            timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        return LatencySample(microseconds: timings)
    }

    /// Measures `ours` and `raw`, each for `iterations` timed calls in all, in `turns`
    /// alternating turns (ours, then raw, then ours again), each closure called with the number
    /// of calls of its turn. A shared machine has slow spells, longer than a row takes (a
    /// neighbour on the host, a move to the other core), that slow every call made in them; taken
    /// in turns, both sides fall into the same spells, so their ratio holds where one side
    /// measured whole and then the other would not.
    static func interleaved(iterations: Int, turns: Int,
                            ours: (Int) throws -> LatencySample,
                            raw: (Int) throws -> LatencySample) rethrows -> (ours: LatencySample, raw: LatencySample) {
        var oursTimings: [Double] = []
        var rawTimings: [Double] = []
        let turns = max(1, min(turns, iterations))
        for index in 0..<turns {
            // Spread the remainder over the first turns, so the totals are exactly `iterations`.
            let turn = iterations / turns + (index < iterations % turns ? 1 : 0)
            oursTimings += try ours(turn).microseconds
            rawTimings += try raw(turn).microseconds
        }
        return (LatencySample(microseconds: oursTimings), LatencySample(microseconds: rawTimings))
    }

    /// The value below which `fraction` of the timings fall (nearest-rank).
    func percentile(_ fraction: Double) -> Double {
        guard !microseconds.isEmpty else { return 0 }
        let sorted = microseconds.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var p50: Double { percentile(0.50) }
    var p90: Double { percentile(0.90) }
    var p99: Double { percentile(0.99) }

    /// Operations per second at the mean latency, one caller at a time.
    var operationsPerSecond: Double {
        let total = microseconds.reduce(0, +)
        return total > 0 ? Double(microseconds.count) / (total / 1_000_000) : 0
    }
}
