/// Something a conformance case needs from the backend beyond the contract every backend keeps,
/// so that a harness picks the cases that apply by what its backend offers rather than by
/// case names. An open set, like swift-system's `Errno`: authors may define their own.
public struct ConformanceNeed: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }

    /// Items one process stores are seen by other processes: the store lives outside the
    /// process. (The memory backend lacks it by design.)
    public static let sharedAcrossProcesses = ConformanceNeed("shared-across-processes")
}

extension KeychainConformance {
    /// The cases that apply to a backend lacking `missing`, in suite order.
    public static func cases(without missing: Set<ConformanceNeed>) -> [ConformanceCase] {
        cases.filter { $0.needs.isDisjoint(with: missing) }
    }
}
