import FoundationEssentials
import Glibc
import KeychainCore

/// The intent record of an update that moves items to new primary keys, the file
/// `rename-journal`: it makes a move of several files all-or-nothing across crashes.
///
/// A move writes the journal (durably), writes every new file, removes every old file, then
/// removes the journal. Whoever finds a journal next (a writer, or a reader, taking the lock)
/// completes the interrupted update if every new file exists, and otherwise undoes it by
/// removing the new files that were written. New locations were vacant before the update
/// (`UpdatePlan.keysNeedingVacancy`), so removing them never removes anything else.
///
/// Layout: "LKCJ", u16 version 1, u32 move count, per move the old and the new location as
/// `<bucket>/<file>` in ASCII (97 bytes each), then a BLAKE2b-256 checksum of all of that. It
/// holds only file names, which are keyed hashes and reveal nothing.
struct RenameJournal {
    static let fileName = "rename-journal"
    static let magic = Data("LKCJ".utf8)
    static let formatVersion: UInt16 = 1
    private static let locationBytes = ItemLocation.bucketNameLength + 1 + ItemLocation.fileNameLength

    let moves: [(from: ItemLocation, to: ItemLocation)]

    init(moves: [(from: ItemLocation, to: ItemLocation)]) {
        self.moves = moves
    }

    var encoded: Data {
        var writer = ByteWriter()
        writer.append(Self.magic)
        writer.append(Self.formatVersion)
        writer.append(UInt32(moves.count))
        for move in moves {
            writer.append(Data("\(move.from.bucket)/\(move.from.file)".utf8))
            writer.append(Data("\(move.to.bucket)/\(move.to.file)".utf8))
        }
        return writer.bytes + Sodium.checksum(writer.bytes)
    }

    /// The most moves one journal (one update) may hold; `ItemFiles.apply` refuses more,
    /// because a longer journal could not be read back to finish or undo the update.
    static let maximumMoves = 100_000
    /// The largest journal that can be valid.
    static let maximumSize = 4 + 2 + 4 + maximumMoves * 2 * locationBytes + 32

    init(parsing data: Data, path: String) throws {
        do {
            guard data.count >= 32, Sodium.checksum(data.dropLast(32)) == data.suffix(32) else {
                throw MalformedBytes("its checksum does not match")
            }
            moves = try data.dropLast(32).withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                guard Data(try reader.take(4, "magic")) == Self.magic else { throw MalformedBytes("it is not a rename journal") }
                let version = try reader.integer(UInt16.self, "format version")
                guard version == Self.formatVersion else { throw MalformedBytes("format version \(version) is unknown") }
                let count = try reader.integer(UInt32.self, "move count")
                var moves: [(from: ItemLocation, to: ItemLocation)] = []
                for _ in 0..<count {
                    moves.append((try Self.location(&reader), try Self.location(&reader)))
                }
                try reader.expectEnd("the moves")
                return moves
            }
        } catch let malformed as MalformedBytes {
            throw KeychainError.damagedFile(path, malformed.reason)
        }
    }

    private static func location(_ reader: inout ByteReader) throws -> ItemLocation {
        let text = String(decoding: try reader.take(locationBytes, "location"), as: UTF8.self)
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, ItemLocation.isBucketName(parts[0]), ItemLocation.isFileName(parts[1]) else {
            throw MalformedBytes("a location is malformed")
        }
        return ItemLocation(bucket: parts[0], file: parts[1])
    }
}
