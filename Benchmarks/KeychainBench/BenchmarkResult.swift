/// One row of the report, in the JSON shape other tools read:
/// `{"results": [{"backend", "operation", "items", "p50_us", "p90_us", "p99_us", "ops_per_s",
///   "baseline"?, "baseline_p50_us"?, "peer"?, "peer_p50_us"?}]}`.
struct BenchmarkResult: Codable {
    var backend: String
    var operation: String
    /// Items in the store while measuring.
    var items: Int
    var p50Microseconds: Double
    var p90Microseconds: Double
    var p99Microseconds: Double
    var operationsPerSecond: Double
    var baseline: String?
    var baselineP50Microseconds: Double?
    var peer: String?
    var peerP50Microseconds: Double?

    enum CodingKeys: String, CodingKey {
        case backend, operation, items, baseline, peer
        case p50Microseconds = "p50_us"
        case p90Microseconds = "p90_us"
        case p99Microseconds = "p99_us"
        case operationsPerSecond = "ops_per_s"
        case baselineP50Microseconds = "baseline_p50_us"
        case peerP50Microseconds = "peer_p50_us"
    }

    init(backend: String, operation: String, items: Int, sample: LatencySample,
         baseline: (name: String, sample: LatencySample)? = nil, peer: (name: String, p50: Double)? = nil) {
        self.backend = backend
        self.operation = operation
        self.items = items
        p50Microseconds = sample.p50.rounded(toPlaces: 2)
        p90Microseconds = sample.p90.rounded(toPlaces: 2)
        p99Microseconds = sample.p99.rounded(toPlaces: 2)
        operationsPerSecond = sample.operationsPerSecond.rounded(toPlaces: 1)
        self.baseline = baseline?.name
        baselineP50Microseconds = baseline.map { $0.sample.p50.rounded(toPlaces: 2) }
        self.peer = peer?.name
        peerP50Microseconds = peer.map { $0.p50.rounded(toPlaces: 2) }
    }

    /// p50 over the raw baseline's p50: the headline figure.
    var ratioToBaseline: Double? {
        guard let baselineP50Microseconds, baselineP50Microseconds > 0 else { return nil }
        return p50Microseconds / baselineP50Microseconds
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
