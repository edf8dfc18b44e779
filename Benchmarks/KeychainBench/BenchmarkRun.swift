import Foundation
import KeychainCore
import KeychainEncryptedFile
import KeychainKeyring
import LinuxKeychain

/// The whole run: which backends, at which store sizes, with which baselines and peers.
struct BenchmarkRun {
    let options: BenchmarkOptions

    private var iterations: Int { options.iterations }

    /// Store sizes at which get and set are measured, each with the raw calls at the same count.
    private func growthSizes(for backend: String) -> [Int] {
        if options.quick { return [10, 50] }
        var maximum = options.maximumItems ?? 10_000
        if backend == "secret-service", options.maximumItems == nil {
            // gnome-keyring rewrites and re-encrypts its whole file on each write, so growing
            // it to 10,000 items takes hours; `--max-items 10000` asks for it all the same.
            maximum = 1_000
            progress("growing secret-service to 1000 items only: gnome-keyring rewrites its whole file on every write (--max-items 10000 to go on)")
        }
        return [10, 100, 1_000, 10_000].filter { $0 <= maximum }
    }

    /// The realistic keyring case: the user's persistent keyring (whatever else it holds), with
    /// every item in an access group, as programs' items are once they have one.
    static let groupedKeyringLabel = "keyring-persistent-grouped"

    /// What `auto` picks on a headless server with a key source: the file store, its
    /// passphrase from the environment and its caches at their default lifetime, in a store of
    /// its own. Its get is to be within 1.5x of `keyring`'s in the same run.
    static let durableDefaultLabel = "file-durable-default"

    func run() throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let registry = KeychainBackendRegistry.withBuiltIns
        let names = options.backends.isEmpty ? registry.names : options.backends
        if let bundleItems = options.bundleItems {
            return try BundleBenchmark(items: bundleItems, targets: options.backends.isEmpty ? BundleBenchmark.defaultTargets : options.backends,
                                       maximumItems: options.maximumItems, rawBaseline: rawBaseline(for:)).measure()
        }
        if options.wholeProcessOnly {
            let usable = try names.filter { name in
                if case .available = try registry.backend(named: name).availability() { return true }
                return false
            }
            return WholeProcessFigures(quick: options.quick).measure(available: Set(usable))
        }
        for name in names {
            let backend = try registry.backend(named: name)
            if case .unavailable(let reason) = backend.availability() {
                progress("skipping \(name): \(reason.message)")
                continue
            }
            results += try measure(backend, label: name, raw: rawBaseline(for: name))
            if name == "keyring" {
                let persistent = KernelKeyringBackend(keyring: .persistent)
                if case .unavailable(let reason) = persistent.availability() {
                    progress("skipping \(Self.groupedKeyringLabel): \(reason.message)")
                } else {
                    results += try measure(persistent, label: Self.groupedKeyringLabel, accessGroup: "keychain-bench",
                                           raw: KeyringRawBaseline(persistent: true))
                }
            }
            if name == EncryptedFileBackend.backendName {
                results += try measureDurableDefault()
            }
        }
        if let comparison = try measureDurableAgainstKeyring(measured: Set(results.map(\.backend))) {
            results.append(comparison)
        }
        progress("measuring front-end overhead")
        results.append(try FrontEndOverhead.measure(iterations: iterations))
        results += WholeProcessFigures(quick: options.quick).measure(available: Set(results.map(\.backend)))
        progress("done")
        return results
    }

    private func measure(_ backend: any KeychainBackend, label: String, accessGroup: String? = nil,
                         raw: (any RawBaseline)?) throws -> [BenchmarkResult] {
        let sizes = growthSizes(for: label)
        progress("measuring \(label) with \(sizes[0]) items")
        let benchmark = try BackendBenchmark(backend: backend, iterations: iterations, label: label, accessGroup: accessGroup)
        try benchmark.grow(to: sizes[0])
        var results = try benchmark.measure(["get", "get (backend, primary key)", "miss", "set",
                                             "set (backend, primary key)", "add", "delete"], against: raw)
        attachPythonPeer(for: label, to: &results)
        for size in sizes.dropFirst() {
            progress("growing \(label) to \(size) items")
            try benchmark.grow(to: size)
            results += try benchmark.measure(["get", "set"], against: raw)
        }
        return results
    }

    /// The `file-durable-default` rows, against the file store's raw calls.
    private func measureDurableDefault() throws -> [BenchmarkResult] {
        try withDurableDefault { backend in
            try measure(backend, label: Self.durableDefaultLabel, raw: rawBaseline(for: EncryptedFileBackend.backendName))
        }
    }

    /// The durable default's get against `keyring`'s in alternating turns, at the smallest
    /// store size (`DurableDefaultAgainstKeyring`), when this run measured both.
    private func measureDurableAgainstKeyring(measured: Set<String>) throws -> BenchmarkResult? {
        guard measured.contains(Self.durableDefaultLabel), measured.contains("keyring") else { return nil }
        progress("measuring \(Self.durableDefaultLabel) get against keyring get, in turns")
        let size = growthSizes(for: Self.durableDefaultLabel)[0]
        return try withDurableDefault { durableBackend in
            let durable = try BackendBenchmark(backend: durableBackend, iterations: iterations, label: Self.durableDefaultLabel)
            let keyring = try BackendBenchmark(backend: try KeychainBackendRegistry.withBuiltIns.backend(named: "keyring"),
                                               iterations: iterations)
            try durable.grow(to: size)
            try keyring.grow(to: size)
            return try DurableDefaultAgainstKeyring.measure(durable: durable, keyring: keyring, iterations: iterations)
        }
    }

    /// Runs `body` with what `auto` picks on a headless server with a key source: the file
    /// store, its passphrase from the environment, its caches at their default lifetime, in a
    /// directory of its own that is removed afterwards.
    private func withDurableDefault<Result>(_ body: (EncryptedFileBackend) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("keychain-bench-durable-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment[FileStoreSettings.directoryVariable] = directory
        environment[FileStoreSettings.cacheVariable] = nil
        if environment[PassphraseSource.variable, default: ""].isEmpty { environment[PassphraseSource.variable] = "keychain-bench-passphrase" }
        return try body(EncryptedFileBackend(environment: environment))
    }

    private func rawBaseline(for backend: String) -> (any RawBaseline)? {
        do {
            switch backend {
            case "keyring": return KeyringRawBaseline()
            case "file":
                let directory = FileManager.default.temporaryDirectory
                    .appendingPathComponent("keychain-bench-raw-\(ProcessInfo.processInfo.processIdentifier)").path
                return try FileRawBaseline(directory: directory)
            case "vault": return try VaultRawBaseline()
            case "secret-service": return try SecretServiceRawBaseline()
            default: return nil
            }
        } catch {
            progress("no raw baseline for \(backend): \(error)")
            return nil
        }
    }

    /// The Python peer of `backend`, on the first rows (the smallest store), if it has one.
    private func attachPythonPeer(for backend: String, to results: inout [BenchmarkResult]) {
        for peer in PythonPeer.all where peer.backend == backend {
            progress("measuring the peer, \(peer.name)")
            switch peer.measure(quick: options.quick, iterations: iterations) {
            case .success(let figures):
                for index in results.indices {
                    if let p50 = figures[results[index].operation] {
                        results[index].peer = peer.name
                        results[index].peerP50Microseconds = p50.rounded(toPlaces: 2)
                    }
                }
            case .failure(let reason):
                progress("skipping the peer \(peer.name): \(reason)")
            }
        }
    }
}

func progress(_ message: String) {
    try? FileHandle.standardError.write(contentsOf: Data("[keychain-bench] \(message)\n".utf8))
}
