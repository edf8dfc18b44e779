import Foundation

/// The fields of an X.509 certificate that Apple stores as attributes (`kSecAttrIssuer`,
/// `kSecAttrSerialNumber`, `kSecAttrSubject`, `kSecAttrCertificateType`), read from the DER of
/// a certificate libcrypto has already parsed.
///
/// Only the first fields of `tbsCertificate` are walked (RFC 5280 4.1: version, serial number,
/// signature algorithm, issuer, validity, subject). Names are kept as their DER, not
/// normalized as Apple's are: a query matches the bytes `kSecReturnAttributes` returned.
struct CertificateFields: Equatable, Sendable {
    /// The X.509 version as Apple's CSSM numbers it: 1, 2 or 3.
    let version: Int64
    /// The issuer's Name, as its whole DER element.
    let issuer: Data
    /// The serial number INTEGER's content bytes.
    let serialNumber: Data
    /// The subject's Name, as its whole DER element.
    let subject: Data

    /// The fields of `der`, or nil when it is not laid out as a certificate.
    init?(der: Data) {
        var outer = DERReader(der)
        guard var certificate = outer.next(tag: 0x30)?.contentReader, var fields = certificate.next(tag: 0x30)?.contentReader
        else { return nil }
        var version: Int64 = 1
        if let explicit = fields.next(tag: 0xA0) {
            var inner = explicit.contentReader
            guard let number = inner.next(tag: 0x02), number.content.count == 1, number.content[number.content.startIndex] <= 2
            else { return nil }
            version = Int64(number.content[number.content.startIndex]) + 1
        }
        guard let serial = fields.next(tag: 0x02), fields.next(tag: 0x30) != nil,
              let issuer = fields.next(tag: 0x30), fields.next(tag: 0x30) != nil, let subject = fields.next(tag: 0x30)
        else { return nil }
        self.version = version
        self.issuer = Data(issuer.whole)
        self.serialNumber = Data(serial.content)
        self.subject = Data(subject.whole)
    }
}

/// Reads DER elements one after another: tag, definite length, content. Only what
/// `CertificateFields` needs: single-byte tags, lengths up to four bytes.
struct DERReader {
    struct Element {
        let tag: UInt8
        let content: Data
        let whole: Data
        var contentReader: DERReader { DERReader(content) }
    }

    private var rest: Data

    init(_ data: Data) { rest = data }

    /// The next element when its tag is `tag`; nil (consuming nothing) otherwise or when malformed.
    mutating func next(tag: UInt8) -> Element? {
        var cursor = rest.startIndex
        guard cursor < rest.endIndex, rest[cursor] == tag else { return nil }
        cursor += 1
        guard cursor < rest.endIndex else { return nil }
        var length = Int(rest[cursor])
        cursor += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), rest.endIndex - cursor >= count else { return nil }
            length = rest[cursor..<(cursor + count)].reduce(0) { $0 << 8 | Int($1) }
            cursor += count
        }
        guard rest.endIndex - cursor >= length else { return nil }
        let element = Element(tag: tag, content: rest[cursor..<(cursor + length)], whole: rest[rest.startIndex..<(cursor + length)])
        rest = rest[(cursor + length)...]
        return element
    }
}
