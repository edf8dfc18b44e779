import KeychainCore
import CKeyutils
import Dispatch
import FoundationEssentials
import Glibc
import KeychainKernelKeyCalls
import KeychainSystemCalls

/// Read-your-writes across a cluster: remembers the newest `X-Vault-Index` each cluster has
/// answered with, and gives the one to send with the next request to a server, so a standby
/// that is behind forwards the request to the active node instead of answering stale.
///
/// Entries are per cluster, shared by the process's backends and, in the keyring where the
/// token cache lives (the user's keyring even with the cache off: the index is no secret), by
/// the user's processes, which update the shared entry one at a time under the user's lock
/// file `vault-index.lock` (`UserLockFile`). A server not yet seen is sent the newest index of
/// any cluster. See docs/vault.md#a-cluster-reading-your-writes-through-any-node.
final class VaultIndexTracker: Sendable {
    private let address: String
    private let location: VaultTokenCacheLocation

    init(address: String, location: VaultTokenCacheLocation) {
        self.address = address
        self.location = location == .processOnly ? .userKeyring : location
    }

    /// The index to send to this tracker's server now, nil when none is known. With
    /// `acknowledgedOnly`, the newest answered one even after a write whose answer was lost.
    func indexToSend(acknowledgedOnly: Bool = false) -> VaultStorageIndex? {
        let shared = load()
        return Self.book.withLock { book in
            if let shared { book.merge(shared) }
            return book.index(for: address, acknowledgedOnly: acknowledgedOnly)
        }
    }

    /// Notes an index the server answered with; `toWrite` when it answered a write.
    func observe(_ index: VaultStorageIndex, toWrite: Bool) {
        let advanced = Self.book.withLock { $0.note(index, from: address, toWrite: toWrite) }
        guard advanced, location.keyring != nil else { return }
        // The kernel has no compare-and-swap: two processes that each load the entry before
        // the other stores it would lose one update, and a process started after both could
        // then read around a write. Without the lock (a stuck holder, no private directory)
        // the entry is still updated, as best it can be.
        let lock = try? Self.sharedEntryLock.acquireInTurn(timeout: Self.lockTimeout).lock
        defer { lock?.release() }
        var shared = load() ?? IndexBook()
        shared.merge(Self.book.withLock { $0 })
        store(shared)
    }

    /// Notes a write whose answer was lost: it may have been applied, at an index never seen.
    /// Until a later write is answered, this process's requests to the cluster go to the
    /// active node (they carry an index no standby has reached), so none reads around it;
    /// while there is no active node (an election) they fall back to the newest acknowledged
    /// index, so reads keep answering (`VaultHTTPClient.sendAll`).
    func noteUnansweredWrite() {
        Self.book.withLock { $0.noteUnansweredWrite(from: address) }
    }

    // MARK: - Process and keyring copies

    /// What this process has learned, from every server it talked to.
    private static let book = Locked(IndexBook())

    private static let description = "linux-keychain:vault-index"
    /// Serialises the shared entry's read-modify-write among the user's processes.
    private static let sharedEntryLock = UserLockFile(
        named: "vault-index.lock",
        runtimeDirectory: ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 })
    /// Far longer than an update holds it: a few kernel calls.
    private static let lockTimeout: Double = 2
    /// How long the shared entry outlives its last update: far longer than any replication lag.
    private static let lifetime: UInt32 = 3600

    private func load() -> IndexBook? {
        guard let keyring = location.keyring,
              let found = try? KernelKeyCalls.search(keyring, type: "user", description: Self.description) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        guard let length = buffer.withUnsafeMutableBytes({ try? KernelKeyCalls.read(found, into: $0) }),
              length > 0, length <= buffer.count else { return nil }
        return IndexBook(record: String(decoding: buffer[..<length], as: UTF8.self))
    }

    private func store(_ book: IndexBook) {
        guard let keyring = location.keyring else { return }
        let record = Array(book.record.utf8)
        record.withUnsafeBytes {
            _ = try? KernelKeyCalls.putExpiring(Self.description, payload: $0, lifetime: Self.lifetime, into: keyring)
        }
    }
}

/// The newest index of each cluster, the cluster each server address belongs to, and which
/// cluster advanced last; bounded, the least recently advanced dropped first.
struct IndexBook: Sendable {
    /// Cluster key (OpenBao's cluster ID, or `address:<address>` for an unordered value) to
    /// its index, the most recently advanced last.
    private var clusters: [(key: String, index: VaultStorageIndex)] = []
    private var clusterOfAddress: [String: String] = [:]
    /// Clusters with a write whose answer was lost since their last answered write
    /// (`VaultIndexTracker.noteUnansweredWrite`); this process's own, never shared.
    private var unsettled: Set<String> = []
    private static let maximumClusters = 8
    private static let maximumAddresses = 64

    init() {}

    func index(for address: String, acknowledgedOnly: Bool = false) -> VaultStorageIndex? {
        let entry = clusterOfAddress[address].flatMap { key in clusters.first { $0.key == key } } ?? clusters.last
        guard let entry else { return nil }
        return unsettled.contains(entry.key) && !acknowledgedOnly ? entry.index.beyondAnyApplied ?? entry.index : entry.index
    }

    mutating func noteUnansweredWrite(from address: String) {
        if let key = clusterOfAddress[address] ?? clusters.last?.key { unsettled.insert(key) }
    }

    /// Records `index` from `address`; true when it advanced what is known.
    mutating func note(_ index: VaultStorageIndex, from address: String, toWrite: Bool = false) -> Bool {
        let key = index.cluster ?? "address:\(address)"
        if toWrite { unsettled.remove(key) }
        if clusterOfAddress[address] != key {
            if clusterOfAddress.count >= Self.maximumAddresses { clusterOfAddress.removeAll() }
            clusterOfAddress[address] = key
        }
        return advance(key, to: index)
    }

    /// Takes whatever in `other` is newer.
    mutating func merge(_ other: IndexBook) {
        for (address, key) in other.clusterOfAddress where clusterOfAddress[address] == nil {
            if clusterOfAddress.count < Self.maximumAddresses { clusterOfAddress[address] = key }
        }
        for entry in other.clusters { _ = advance(entry.key, to: entry.index) }
    }

    private mutating func advance(_ key: String, to index: VaultStorageIndex) -> Bool {
        if let position = clusters.firstIndex(where: { $0.key == key }) {
            guard index.supersedes(clusters[position].index) else { return false }
            clusters.remove(at: position)
        }
        clusters.append((key, index))
        if clusters.count > Self.maximumClusters { clusters.removeFirst() }
        return true
    }

    // The shared record: "v1", then "c <key> <header>" per cluster (oldest first) and
    // "a <address> <key>" per address. Neither keys, addresses nor headers hold spaces or newlines.
    /// Without `unsettled`, which stays in the process.
    var record: String {
        (["v1"] + clusters.map { "c \($0.key) \($0.index.header)" } + clusterOfAddress.map { "a \($0.key) \($0.value)" })
            .joined(separator: "\n")
    }

    init?(record: String) {
        let lines = record.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        guard lines.first == ["v1"] else { return nil }
        for fields in lines.dropFirst() where fields.count == 3 {
            if fields[0] == "c", let index = VaultStorageIndex(header: fields[2]) {
                _ = advance(fields[1], to: index)
            } else if fields[0] == "a", clusterOfAddress.count < Self.maximumAddresses {
                clusterOfAddress[fields[1]] = fields[2]
            }
        }
    }
}
