/// A backend whose writes each wait mostly on a server, so that several sent side by side take
/// little longer than one: a move into it (`ItemMigration`) writes and verifies that many items
/// at once. Contract: writes to different primary keys from that many threads at once are safe
/// (as every backend's are) and do not slow one another down much.
public protocol SideBySideWrites: KeychainBackend {
    /// How many items a move into this backend handles at once; 1 or more.
    var sideBySideWrites: Int { get }
}
