import Foundation
import KeychainCore
import KeychainEncryptedFile
import LinuxKeychain

/// Issue #30's goal 4: `linux-keychain export` of a bundle from the kernel keyring, then
/// `linux-keychain import` of it into each target, each one whole process timed once, beside
/// as many raw adds into the same store (`RawBaseline.addMany`) measured in the same run.
/// The goal is under 30 s each at 10,000 items.
///
/// The Secret Service gets a bundle of 1,000 items unless `--max-items` allows more, as the
/// growth rows do: gnome-keyring rewrites its whole file on every write, raw adds included.
struct BundleBenchmark {
    let items: Int
    let targets: [String]
    let maximumItems: Int?
    let rawBaseline: (String) -> (any RawBaseline)?

    static let defaultTargets = ["file", "vault", "keyring", "secret-service"]
    private static let passphrase = "keychain-bench-bundle-passphrase"

    func measure() throws -> [BenchmarkResult] {
        let run = "keychain-bench-bundle-\(ProcessInfo.processInfo.processIdentifier)"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(run).path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let keyring = try KeychainBackendRegistry.withBuiltIns.backend(named: "keyring")
        var results: [BenchmarkResult] = []
        for count in Set(targets.map(size(for:))).sorted() {
            let group = "\(run)-\(count)"
            let bundle = "\(scratch)/\(count).lkb"
            progress("bundle: adding \(count) items to keyring")
            for index in 0..<count { try keyring.add(item(index, group: group)) }
            let exported = try timedCommand(["export", "--group", group, bundle], backend: "keyring", scratch: scratch)
            results.append(BenchmarkResult(backend: "keyring", operation: "export (bundle)", items: count,
                                           sample: LatencySample(microseconds: [exported * 1e6])))
            guard try keyring.delete(Self.query(group)) == count else {
                throw BaselineError(description: "keyring did not hold the \(count) items the bundle was made from")
            }
            for target in targets where size(for: target) == count {
                results.append(try measureImport(of: bundle, count: count, group: group, into: target, scratch: scratch))
            }
        }
        return results
    }

    private func size(for target: String) -> Int {
        target == "secret-service" ? min(items, maximumItems ?? 1_000) : items
    }

    private func measureImport(of bundle: String, count: Int, group: String, into target: String,
                               scratch: String) throws -> BenchmarkResult {
        let backend = try self.backend(target, scratch: scratch)
        defer { _ = try? backend.delete(Self.query(group)) }
        progress("bundle: importing \(count) items into \(target)")
        let imported = try timedCommand(["import", bundle], backend: target, scratch: scratch)
        let held = try backend.search(Self.query(group)).count
        guard held == count else { throw BaselineError(description: "\(target) holds \(held) of the \(count) imported items") }
        var baseline: (name: String, sample: LatencySample)?
        if let raw = rawBaseline(target) {
            progress("bundle: \(count) raw adds into \(target)")
            let seconds = try raw.addMany(count)
            baseline = ("\(count) × \(raw.addName)", LatencySample(microseconds: [seconds * 1e6]))
        }
        return BenchmarkResult(backend: target, operation: "import (bundle)", items: count,
                               sample: LatencySample(microseconds: [imported * 1e6]), baseline: baseline)
    }

    /// The target as the command sees it; the file store is a new one in `scratch`.
    private func backend(_ name: String, scratch: String) throws -> any KeychainBackend {
        guard name == EncryptedFileBackend.backendName else { return try KeychainBackendRegistry.withBuiltIns.backend(named: name) }
        return EncryptedFileBackend(environment: ProcessInfo.processInfo.environment.merging(fileStore(in: scratch)) { _, new in new })
    }

    private func fileStore(in scratch: String) -> [String: String] {
        var settings = [FileStoreSettings.directoryVariable: "\(scratch)/file-store"]
        if ProcessInfo.processInfo.environment[PassphraseSource.variable, default: ""].isEmpty {
            settings[PassphraseSource.variable] = "keychain-bench-passphrase"
        }
        return settings
    }

    /// The seconds `linux-keychain ARGUMENTS` takes with KEYCHAIN_BACKEND=`backend`; throws
    /// unless it exits 0.
    private func timedCommand(_ arguments: [String], backend: String, scratch: String) throws -> Double {
        let settings = fileStore(in: scratch).merging([
            "KEYCHAIN_BACKEND": backend, "KEYCHAIN_BUNDLE_PASSPHRASE": Self.passphrase,
            "KEYCHAIN_SECRET_SERVICE_TIMEOUT": "600",
        ]) { _, new in new }
        let command = ["env"] + settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            + [WholeProcessBenchmark.cliPath] + arguments
        let start = DispatchTime.now().uptimeNanoseconds
        let status = try WholeProcessBenchmark.spawnAndWait(command)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard status == 0 else { throw BaselineError(description: "linux-keychain \(arguments[0]) on \(backend) exited \(status)") }
        return seconds
    }

    private func item(_ index: Int, group: String) -> KeychainItem {
        KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([
            .service: .string("keychain-bench-bundle"), .account: .string("account-\(index)"), .accessGroup: .string(group),
        ]), secret: SecretBytes(Data("bundle secret \(index)".utf8)))
    }

    private static func query(_ group: String) -> ItemQuery {
        ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.accessGroup: .string(group)]))
    }
}
