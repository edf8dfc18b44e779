import Foundation

/// `linux-keychain get` as a whole process on each backend, beside the tools an operator would run
/// for the same read: `keyctl pipe` (keyring), `secret-tool lookup` and `python3 -m keyring
/// get` (secret-service), `bao kv get` (vault), and a Foundation hello-world, the floor a Swift
/// command-line tool starts from.
struct WholeProcessFigures {
    let quick: Bool

    private var count: Int { quick ? 3 : 100 }
    private let service = "keychain-bench-cli-\(ProcessInfo.processInfo.processIdentifier)"
    private let secret = Data(repeating: 0x5A, count: 32)

    /// The names of the commands timed, as the report shows them.
    private enum Command {
        static let hello = "the Foundation hello-world"
        static func keychainGet(_ backend: String) -> String { "linux-keychain get on \(backend)" }
        static let keyctlPipe = "keyctl pipe"
        static let secretToolLookup = "secret-tool lookup"
        static let pythonKeyringGet = "python3 -m keyring get"
        static let baoKVGet = "bao kv get"
    }

    /// Every command is timed in the same rounds (`WholeProcessBenchmark.measureInTurns`), so
    /// that the ratios to the hello-world and to the stores' own tools compare like with like.
    func measure(available: Set<String>) -> [BenchmarkResult] {
        let cli = WholeProcessBenchmark.cliPath
        var commands: [String: [String]] = [:]
        var cleanUps: [() -> Void] = []
        defer { for cleanUp in cleanUps.reversed() { cleanUp() } }
        if let hello = helloPath() { commands[Command.hello] = [hello] }
        let backends = ["keyring", "secret-service", "file", "vault"].filter { available.contains($0) }
        for backend in backends {
            do {
                try runQuietly([cli, "--backend", backend, "set", service, "cli"], input: secret)
                cleanUps.append { _ = try? runQuietly([cli, "--backend", backend, "delete", service, "cli"]) }
                commands[Command.keychainGet(backend)] = [cli, "--backend", backend, "get", service, "cli"]
            } catch {
                progress("whole-process figures for \(backend) failed: \(error)")
            }
        }
        if available.contains("keyring") { addKeyctlPipe(to: &commands, cleanUps: &cleanUps) }
        if available.contains("secret-service") {
            // The item `linux-keychain set` wrote has the attributes secret-tool and Python keyring use.
            commands[Command.secretToolLookup] = ["secret-tool", "lookup", "service", service, "username", "cli"]
            commands[Command.pythonKeyringGet] = ["python3", "-m", "keyring", "-b", "keyring.backends.SecretService.Keyring",
                                                  "get", service, "cli"]
        }
        if available.contains("vault") { addBaoKVGet(to: &commands, cleanUps: &cleanUps) }

        progress("measuring whole processes in turns: \(commands.keys.sorted().joined(separator: ", "))")
        let samples = CPUAffinity.onEveryCPU {
            WholeProcessBenchmark.measureInTurns(commands, iterations: count) { name, error in
                progress("skipping \(name): \(error)")
            }
        }
        var results: [BenchmarkResult] = []
        if let hello = samples[Command.hello] {
            results.append(BenchmarkResult(backend: "process", operation: "Foundation hello-world (whole process)",
                                           items: 0, sample: hello))
        }
        for backend in backends {
            guard let sample = samples[Command.keychainGet(backend)] else { continue }
            let baseline = baselineName(for: backend).flatMap { name in samples[name].map { (name: name, sample: $0) } }
            let peer = peerName(for: backend).flatMap { name in samples[name].map { (name: name, p50: $0.p50) } }
            results.append(BenchmarkResult(backend: backend, operation: "get (whole process)", items: 1, sample: sample,
                                           baseline: baseline, peer: peer))
        }
        return results
    }

    /// The same read by the store's own C tool.
    private func baselineName(for backend: String) -> String? {
        switch backend {
        case "keyring": return Command.keyctlPipe
        case "secret-service": return Command.secretToolLookup
        default: return nil
        }
    }

    /// The same read by the tool users of that store already run.
    private func peerName(for backend: String) -> String? {
        switch backend {
        case "secret-service": return Command.pythonKeyringGet
        case "vault": return Command.baoKVGet
        default: return nil
        }
    }

    private func helloPath() -> String? {
        let hello = URL(fileURLWithPath: WholeProcessBenchmark.cliPath).deletingLastPathComponent()
            .appendingPathComponent("keychain-bench-hello").path
        guard FileManager.default.isExecutableFile(atPath: hello) else {
            progress("skipping the Foundation hello-world: \(hello) is not built (swift build --product keychain-bench-hello)")
            return nil
        }
        return hello
    }

    private func addKeyctlPipe(to commands: inout [String: [String]], cleanUps: inout [() -> Void]) {
        do {
            // In the session keyring, which every child possesses.
            let id = try runQuietly(["keyctl", "padd", "user", "keychain-bench-keyctl", "@s"], input: secret)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            cleanUps.append { _ = try? runQuietly(["keyctl", "unlink", id, "@s"]) }
            commands[Command.keyctlPipe] = ["keyctl", "pipe", id]
        } catch {
            progress("skipping the keyctl pipe baseline: \(error)")
        }
    }

    private func addBaoKVGet(to commands: inout [String: [String]], cleanUps: inout [() -> Void]) {
        let path = "secret/keychain-bench-bao-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try runQuietly(["bao", "kv", "put", path, "password=" + String(repeating: "Z", count: 32)])
            cleanUps.append { _ = try? runQuietly(["bao", "kv", "metadata", "delete", path]) }
            commands[Command.baoKVGet] = ["bao", "kv", "get", "-field=password", path]
        } catch {
            progress("skipping the bao kv get peer: \(error)")
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
