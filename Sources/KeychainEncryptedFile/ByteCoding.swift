import FoundationEssentials
import Glibc

/// Builds the store's binary formats: big-endian integers and length-prefixed fields.
struct ByteWriter {
    private(set) var bytes = Data()

    mutating func append(_ data: Data) { bytes.append(data) }

    mutating func append<Integer: FixedWidthInteger>(_ value: Integer) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// A field preceded by its length as a 32-bit integer.
    mutating func appendField(_ data: Data) {
        append(UInt32(data.count))
        append(data)
    }
}

/// A field or value that does not parse; the text says which, never what it held.
struct MalformedBytes: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Reads the store's binary formats with every length checked against what is left, so
/// that no input, however damaged, can read out of bounds or allocate more than its size.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { remaining == 0 }

    // `what` names the part for an error message. It is an autoclosure because reading an item
    // reads a dozen fields, and building their names eagerly cost more than the decryption.

    /// The next `count` bytes, without copying; valid as long as the underlying buffer.
    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(MalformedBytes) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw MalformedBytes("\(what()) runs past the end") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func data(_ count: Int, _ what: @autoclosure () -> String) throws(MalformedBytes) -> Data {
        Data(try take(count, what()))
    }

    mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ what: @autoclosure () -> String) throws(MalformedBytes) -> Integer {
        let raw = try take(MemoryLayout<Integer>.size, what())
        var value: Integer = 0
        for byte in raw { value = (value << 8) | Integer(byte) }
        return value
    }

    /// A field written by `ByteWriter.appendField`, without copying.
    mutating func field(_ what: @autoclosure () -> String) throws(MalformedBytes) -> UnsafeRawBufferPointer {
        let length = try integer(UInt32.self, "\(what()) length")
        return try take(Int(length), what())
    }

    func expectEnd(_ what: String) throws(MalformedBytes) {
        guard isAtEnd else { throw MalformedBytes("\(remaining) unexpected bytes after \(what)") }
    }
}
