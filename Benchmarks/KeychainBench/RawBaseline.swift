/// The raw C or HTTP calls a backend makes at its core, timed in the same run, so the report
/// can say how much the library adds: get is a read of one secret, set a replacement of it.
protocol RawBaseline {
    /// What the baseline calls, e.g. `keyctl_search+keyctl_read`.
    var getName: String { get }
    var setName: String { get }
    func measureGet(iterations: Int) throws -> LatencySample
    func measureSet(iterations: Int) throws -> LatencySample
    /// The raw lookup of a name that is not there, where the store has one.
    var missName: String? { get }
    func measureMiss(iterations: Int) throws -> LatencySample?
}

/// A baseline that could not be set up or measured; the text says why.
struct BaselineError: Error, CustomStringConvertible {
    let description: String
}

extension RawBaseline {
    var missName: String? { nil }
    func measureMiss(iterations: Int) throws -> LatencySample? { nil }

    /// The baseline for a benchmark operation name, or nil for operations without one.
    func sample(for operation: String, iterations: Int) throws -> (name: String, sample: LatencySample)? {
        switch operation {
        case "get", "get (backend, primary key)": return (getName, try measureGet(iterations: iterations))
        case "set", "set (backend, primary key)": return (setName, try measureSet(iterations: iterations))
        case "miss":
            guard let missName, let sample = try measureMiss(iterations: iterations) else { return nil }
            return (missName, sample)
        default: return nil
        }
    }
}
