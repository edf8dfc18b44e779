import Foundation
import KeychainCore
import LinuxKeychain

/// The whole run: which backends, at which store sizes, with which baselines and peers.
struct BenchmarkRun {
    let options: BenchmarkOptions

    private var iterations: Int { options.iterations }

    /// Store sizes beyond the first (10 items) at which get and set are measured again.
    private func growthSizes(for backend: String) -> [Int] {
        switch backend {
        case "file", "keyring": return options.quick ? [50] : [1_000, 10_000]
        case "secret-service": return options.quick ? [50] : [1_000]
        default: return []
        }
    }

    func run() throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        let registry = KeychainBackendRegistry.withBuiltIns
        let names = options.backends.isEmpty ? registry.names : options.backends
        for name in names {
            let backend = try registry.backend(named: name)
            if case .unavailable(let reason) = backend.availability() {
                progress("skipping \(name): \(reason.message)")
                continue
            }
            results += try measure(backend)
        }
        progress("measuring front-end overhead")
        results.append(try FrontEndOverhead.measure(iterations: iterations))
        results += wholeProcessFigures(available: Set(results.map(\.backend)))
        progress("done")
        return results
    }

    private func measure(_ backend: any KeychainBackend) throws -> [BenchmarkResult] {
        let name = backend.name
        progress("measuring \(name) with 10 items")
        let benchmark = try BackendBenchmark(backend: backend, iterations: iterations)
        try benchmark.grow(to: 10)
        let raw = rawBaseline(for: name)
        var results = try benchmark.measure(["get", "set", "add", "delete"]) { operation in
            try raw?.sample(for: operation, iterations: iterations)
        }
        if name == "secret-service" { attachPythonPeer(to: &results) }
        for size in growthSizes(for: name) {
            progress("growing \(name) to \(size) items")
            try benchmark.grow(to: size)
            results += try benchmark.measure(["get", "set"]) { _ in nil }
        }
        return results
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

    private func attachPythonPeer(to results: inout [BenchmarkResult]) {
        progress("measuring the peer, Python keyring")
        switch PythonKeyringPeer.measure(iterations: iterations) {
        case .success(let figures):
            for index in results.indices {
                if let p50 = figures[results[index].operation] {
                    results[index].peer = PythonKeyringPeer.name
                    results[index].peerP50Microseconds = p50.rounded(toPlaces: 2)
                }
            }
        case .failure(let reason):
            progress("skipping the Python keyring peer: \(reason)")
        }
    }

    /// `keychain get` as a whole process on `keyring` and `file`, beside `keyctl pipe` and
    /// `python3 -m keyring get` reading a secret of the same size.
    private func wholeProcessFigures(available: Set<String>) -> [BenchmarkResult] {
        let count = options.quick ? 3 : 30
        let cli = WholeProcessBenchmark.cliPath
        let service = "keychain-bench-cli-\(ProcessInfo.processInfo.processIdentifier)"
        var results: [BenchmarkResult] = []
        guard !available.isDisjoint(with: ["keyring", "file"]) else { return results }
        let keyctlBaseline = measureKeyctlPipe(iterations: count)
        let pythonPeer = measurePythonCLI(iterations: count, service: service)
        for backend in ["keyring", "file"] where available.contains(backend) {
            progress("measuring `keychain get` as a whole process on \(backend)")
            do {
                try runQuietly([cli, "--backend", backend, "set", service, "cli"], input: Data(repeating: 0x5A, count: 32))
                defer { _ = try? runQuietly([cli, "--backend", backend, "delete", service, "cli"]) }
                let sample = try WholeProcessBenchmark.measure([cli, "--backend", backend, "get", service, "cli"], iterations: count)
                results.append(BenchmarkResult(backend: backend, operation: "get (whole process)", items: 1, sample: sample,
                                               baseline: backend == "keyring" ? keyctlBaseline.map { ("keyctl pipe", $0) } : nil,
                                               peer: pythonPeer.map { ("python3 -m keyring get", $0.p50) }))
            } catch {
                progress("whole-process figures for \(backend) failed: \(error)")
            }
        }
        return results
    }

    private func measureKeyctlPipe(iterations: Int) -> LatencySample? {
        do {
            let id = try runQuietly(["keyctl", "padd", "user", "keychain-bench-keyctl", "@s"], input: Data(repeating: 0x5A, count: 32))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            defer { _ = try? runQuietly(["keyctl", "unlink", id, "@s"]) }
            return try WholeProcessBenchmark.measure(["keyctl", "pipe", id], iterations: iterations)
        } catch {
            progress("skipping the keyctl pipe baseline: \(error)")
            return nil
        }
    }

    private func measurePythonCLI(iterations: Int, service: String) -> LatencySample? {
        do {
            try runQuietly(["python3", "-c", "import keyring, sys; keyring.set_password(sys.argv[1], 'cli', 'Z' * 32)", service])
            defer { _ = try? runQuietly(["python3", "-c", "import keyring, sys; keyring.delete_password(sys.argv[1], 'cli')", service]) }
            return try WholeProcessBenchmark.measure(["python3", "-m", "keyring", "get", service, "cli"], iterations: iterations)
        } catch {
            progress("skipping the python3 -m keyring peer: \(error)")
            return nil
        }
    }

    /// Runs a helper command to completion and returns its stdout; throws if it fails.
    @discardableResult
    private func runQuietly(_ arguments: [String], input: Data? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BaselineError(description: "\(arguments.first ?? "") exited \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    private func progress(_ message: String) {
        FileHandle.standardError.write(Data("[keychain-bench] \(message)\n".utf8))
    }
}
