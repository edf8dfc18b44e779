import FoundationEssentials
import Glibc

/// One `X-Vault-Index` value: how far a cluster's storage had got when it answered.
///
/// OpenBao sends it on its answers (from 2.7) and honours it on requests: a standby serves a
/// request carrying it only once it has applied storage up to that index (`VaultIndexTracker`
/// says what happens otherwise). The value is meant to be opaque. OpenBao's is base64 of a
/// JSON object `{"cluster": <cluster ID>, "value": <raft index>}`; when it has that shape two
/// values of one cluster are ordered by their index, and any other value (another server's
/// format) is kept as the newest one seen, as is. It is not a secret: it names a cluster and
/// a position in its log.
struct VaultStorageIndex: Sendable, Equatable {
    /// The header's value, sent back unchanged.
    let header: String
    /// The cluster ID and raft index, when the value has OpenBao's shape.
    let cluster: String?
    let position: UInt64?

    /// Nil for an empty value, or one too long or not printable ASCII to be a header again.
    init?(header: String) {
        guard !header.isEmpty, header.utf8.count < 1024,
              header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return nil }
        self.header = header
        if let decoded = Data(base64Encoded: header),
           let object = try? JSONDecoder().decode(IndexFields.self, from: decoded), let position = UInt64(object.value) {
            self.cluster = object.cluster
            self.position = position
        } else {
            cluster = nil
            position = nil
        }
    }

    init(header: String, cluster: String?, position: UInt64?) {
        self.header = header
        self.cluster = cluster
        self.position = position
    }

    /// An index of the same cluster that no node will ever have applied, so a standby passes
    /// a request carrying it to the active node; nil for a value without OpenBao's shape.
    var beyondAnyApplied: VaultStorageIndex? {
        guard let cluster else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(IndexFields(cluster: cluster, value: String(UInt64.max))) else { return nil }
        return VaultStorageIndex(header: data.base64EncodedString(), cluster: cluster, position: UInt64.max)
    }

    /// Whether `self`, seen after `earlier`, should replace it: a later index of the same
    /// cluster, or any value that cannot be ordered against it (another cluster's, after a
    /// rebuild; an opaque one). An older index of the same cluster never replaces a newer one.
    func supersedes(_ earlier: VaultStorageIndex) -> Bool {
        guard let cluster, cluster == earlier.cluster, let position, let earlierPosition = earlier.position else {
            return header != earlier.header
        }
        return position > earlierPosition
    }
}

/// The fields of OpenBao's index header that matter here (others are ignored).
private struct IndexFields: Codable {
    let cluster: String
    let value: String
}
