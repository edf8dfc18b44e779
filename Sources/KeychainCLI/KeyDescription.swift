import FoundationEssentials
import Glibc
import KeychainCore

/// How the CLI names a stored key (`kSecClassKey`): its tag, and its algorithm, size and
/// class (`EC-256 private`); and a certificate by its serial number. Never a key's bytes,
/// which are the item's secret.
struct KeyDescription {
    let attributes: ItemAttributes

    init(_ attributes: ItemAttributes) { self.attributes = attributes }

    /// The application tag as text when it is UTF-8, else as hex.
    var tag: String? {
        guard let tag = attributes[.applicationTag]?.readableData, !tag.isEmpty else { return nil }
        return tag
    }

    /// A certificate's serial number in hex (`serial 0a1b…`).
    var serial: String {
        "serial " + (attributes[.serialNumber]?.hexData ?? "-")
    }

    /// Algorithm, size in bits and class, from Apple's numbers for `kSecAttrKeyType` and
    /// `kSecAttrKeyClass`.
    var kind: String {
        let algorithm = switch integer(.type) {
        case 73: "EC"
        case 42: "RSA"
        case let other: "type \(other)"
        }
        let keyClass = switch integer(.keyClass) {
        case 0: "public"
        case 1: "private"
        case 2: "symmetric"
        case let other: "class \(other)"
        }
        return "\(algorithm)-\(integer(.keySizeInBits)) \(keyClass)"
    }

    private func integer(_ key: AttributeKey) -> Int64 {
        if case .integer(let number)? = attributes[key] { return number }
        return 0
    }
}
