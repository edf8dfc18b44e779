import CKeyutils
import Synchronization

/// Debug builds only: lets a test act at the points between the reads with which a reader
/// tells an empty secret from a secret of one zero byte
/// (`ItemLookup.secret(of:in:)`), so that it can play, deterministically, the
/// updates of another process landing there. Release builds compile every call away.
enum PlaceholderCheckSeam {
    enum Point: Sendable {
        /// The item key was read and holds the placeholder; its entry is read next.
        case beforeEntry
        /// The entry said the secret is not empty; the reader looks a second time next.
        case beforeSecondLook
    }

    #if DEBUG
    private static let actions = Mutex<[key_serial_t: @Sendable (Point) -> Void]>([:])

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
