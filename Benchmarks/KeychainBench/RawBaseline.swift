import Foundation

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
    /// What `addMany` calls per item, e.g. `add_key`.
    var addName: String { get }
    /// Adds `count` new items of distinct names, one raw call sequence each, as durable as the
    /// store's own add, and removes them again where the store allows; returns the adds' seconds.
    func addMany(_ count: Int) throws -> Double
}

/// A baseline that could not be set up or measured; the text says why.
struct BaselineError: Error, CustomStringConvertible {
    let description: String
}

extension RawBaseline {
    var missName: String? { nil }
    func measureMiss(iterations: Int) throws -> LatencySample? { nil }

    /// The seconds `body` takes.
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// What the baseline of a benchmark operation calls, or nil for operations without one.
    func name(for operation: String) -> String? {
        switch operation {
        case "get", "get (backend, primary key)": return getName
        case "set", "set (backend, primary key)": return setName
        case "miss": return missName
        default: return nil
        }
    }

    /// The baseline's timings for a benchmark operation, or nil for operations without one.
    func sample(for operation: String, iterations: Int) throws -> LatencySample? {
        switch operation {
        case "get", "get (backend, primary key)": return try measureGet(iterations: iterations)
        case "set", "set (backend, primary key)": return try measureSet(iterations: iterations)
        case "miss": return try measureMiss(iterations: iterations)
        default: return nil
        }
    }
}
