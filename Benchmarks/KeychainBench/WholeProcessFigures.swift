import Foundation

/// `keychain get` as a whole process on each backend, beside the tools an operator would run
/// for the same read: `keyctl pipe` (keyring), `secret-tool lookup` and `python3 -m keyring
/// get` (secret-service), `bao kv get` (vault), and a Foundation hello-world, the floor a Swift
/// command-line tool starts from.
struct WholeProcessFigures {
    let quick: Bool

    private var count: Int { quick ? 3 : 30 }
    private let service = "keychain-bench-cli-\(ProcessInfo.processInfo.processIdentifier)"
    private let secret = Data(repeating: 0x5A, count: 32)

    func measure(available: Set<String>) -> [BenchmarkResult] {
        let cli = WholeProcessBenchmark.cliPath
        var results: [BenchmarkResult] = []
        if let hello = measureHello() {
            results.append(BenchmarkResult(backend: "process", operation: "Foundation hello-world (whole process)",
                                           items: 0, sample: hello))
        }
        for backend in ["keyring", "secret-service", "file", "vault"] where available.contains(backend) {
            progress("measuring `keychain get` as a whole process on \(backend)")
            do {
                try runQuietly([cli, "--backend", backend, "set", service, "cli"], input: secret)
                defer { _ = try? runQuietly([cli, "--backend", backend, "delete", service, "cli"]) }
                let sample = try WholeProcessBenchmark.measure([cli, "--backend", backend, "get", service, "cli"],
                                                               iterations: count)
                results.append(BenchmarkResult(backend: backend, operation: "get (whole process)", items: 1, sample: sample,
                                               baseline: baseline(for: backend), peer: peer(for: backend)))
            } catch {
                progress("whole-process figures for \(backend) failed: \(error)")
            }
        }
        return results
    }

    /// The same read by the store's own C tool.
    private func baseline(for backend: String) -> (name: String, sample: LatencySample)? {
        switch backend {
        case "keyring": return measureKeyctlPipe().map { ("keyctl pipe", $0) }
        case "secret-service":
            // The item `keychain set` wrote has the attributes secret-tool and Python keyring use.
            return measureTool("secret-tool lookup", ["secret-tool", "lookup", "service", service, "username", "cli"])
                .map { ("secret-tool lookup", $0) }
        default: return nil
        }
    }

    /// The same read by the tool users of that store already run.
    private func peer(for backend: String) -> (name: String, p50: Double)? {
        switch backend {
        case "secret-service":
            return measureTool("python3 -m keyring get",
                               ["python3", "-m", "keyring", "-b", "keyring.backends.SecretService.Keyring", "get", service, "cli"])
                .map { ("python3 -m keyring get", $0.p50) }
        case "vault": return measureBao().map { ("bao kv get", $0.p50) }
        default: return nil
        }
    }

    private func measureHello() -> LatencySample? {
        let hello = URL(fileURLWithPath: WholeProcessBenchmark.cliPath).deletingLastPathComponent()
            .appendingPathComponent("keychain-bench-hello").path
        guard FileManager.default.isExecutableFile(atPath: hello) else {
            progress("skipping the Foundation hello-world: \(hello) is not built (swift build --product keychain-bench-hello)")
            return nil
        }
        return measureTool("the Foundation hello-world", [hello])
    }

    private func measureTool(_ name: String, _ arguments: [String]) -> LatencySample? {
        do {
            return try WholeProcessBenchmark.measure(arguments, iterations: count)
        } catch {
            progress("skipping \(name): \(error)")
            return nil
        }
    }

    private func measureKeyctlPipe() -> LatencySample? {
        do {
            // In the session keyring, which every child possesses.
            let id = try runQuietly(["keyctl", "padd", "user", "keychain-bench-keyctl", "@s"], input: secret)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            defer { _ = try? runQuietly(["keyctl", "unlink", id, "@s"]) }
            return try WholeProcessBenchmark.measure(["keyctl", "pipe", id], iterations: count)
        } catch {
            progress("skipping the keyctl pipe baseline: \(error)")
            return nil
        }
    }

    private func measureBao() -> LatencySample? {
        let path = "secret/keychain-bench-bao-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try runQuietly(["bao", "kv", "put", path, "password=" + String(repeating: "Z", count: 32)])
            defer { _ = try? runQuietly(["bao", "kv", "metadata", "delete", path]) }
            return try WholeProcessBenchmark.measure(["bao", "kv", "get", "-field=password", path], iterations: count)
        } catch {
            progress("skipping the bao kv get peer: \(error)")
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
        if let input { try stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BaselineError(description: "\(arguments.first ?? "") exited \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
