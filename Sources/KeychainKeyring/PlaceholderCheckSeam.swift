import KeychainCore
import CKeyutils

/// Debug builds only: lets a test act between the reads with which `ItemLookup.secret(of:in:)`
/// tells an empty secret from one zero byte, to play other processes' updates landing there.
enum PlaceholderCheckSeam {
    enum Point: Sendable {
        /// The item key was read and holds the placeholder; its entry is read next.
        case beforeEntry
        /// The entry said the secret is not empty; the reader looks a second time next.
        case beforeSecondLook
    }

    #if DEBUG
    private static let actions = Locked<[key_serial_t: @Sendable (Point) -> Void]>([:])

    /// Runs `action` at each point a read of an item in `target` reaches, until `body` returns.
    static func acting(in target: key_serial_t, _ action: @escaping @Sendable (Point) -> Void,
                       during body: () throws -> Void) rethrows {
        actions.withLock { $0[target] = action }
        defer { _ = actions.withLock { $0.removeValue(forKey: target) } }
        try body()
    }
    #endif

    @inline(__always)
    static func reach(_ point: Point, in target: key_serial_t) {
        #if DEBUG
        actions.withLock { $0[target] }?(point)
        #endif
    }
}
