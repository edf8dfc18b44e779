#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import Glibc

/// Who holds a `flock`, as `/proc/locks` tells: for the error a caller gets when it gives up
/// waiting for the store's lock.
enum LockHolders {
    /// The IDs of the processes holding a lock on the file `status` describes (its device and
    /// inode), in this process's PID namespace. Empty when `/proc/locks` cannot be read or
    /// lists nobody (the holder may have just let go).
    ///
    /// A line reads `1: FLOCK  ADVISORY  WRITE 1234 08:02:131075 0 EOF`, the device as hex
    /// major:minor; lines of waiters (`1: -> FLOCK ...`) are skipped.
    static func processes(holding status: stat, locksTable: String? = nil) -> [Int32] {
        guard let table = locksTable ?? (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) else { return [] }
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        var holders: [Int32] = []
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] != "->", fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[0], radix: 16) == major, UInt64(file[1], radix: 16) == minor,
                  UInt64(file[2]) == UInt64(status.st_ino), let pid = Int32(fields[4]), pid > 0,
                  !holders.contains(pid) else { continue }
            holders.append(pid)
        }
        return holders
    }
}
