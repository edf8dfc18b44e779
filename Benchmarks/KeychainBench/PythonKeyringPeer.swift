import Foundation

/// Python's `keyring` library, timed in its own process over the same number of calls: the
/// peer most Linux users already know. Its figures are per call inside Python, so process
/// start-up is not counted against it.
enum PythonKeyringPeer {
    static let name = "python-keyring"

    private static let script = """
    import json, statistics, sys, time
    try:
        import keyring
    except ImportError:
        print(json.dumps({"error": "Python keyring is not installed"})); sys.exit(0)
    count, service = int(sys.argv[1]), sys.argv[2]
    def p50(call):
        samples = []
        for _ in range(count):
            start = time.perf_counter_ns(); call(); samples.append((time.perf_counter_ns() - start) / 1000)
        return statistics.median(samples)
    keyring.set_password(service, "peer", "Z" * 32)
    result = {"backend": type(keyring.get_keyring()).__module__,
              "get": p50(lambda: keyring.get_password(service, "peer")),
              "set": p50(lambda: keyring.set_password(service, "peer", "Z" * 32))}
    keyring.delete_password(service, "peer")
    print(json.dumps(result))
    """

    /// p50 in microseconds per operation ("get", "set"), or the reason it could not be measured.
    static func measure(iterations: Int) -> Result<[String: Double], BaselineError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(iterations), "keychain-bench-peer-\(ProcessInfo.processInfo.processIdentifier)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(BaselineError(description: "python3 could not start")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .failure(BaselineError(description: "Python keyring failed (exit \(process.terminationStatus))"))
        }
        if let error = json["error"] as? String { return .failure(BaselineError(description: error)) }
        guard let backend = json["backend"] as? String, backend.contains("SecretService") else {
            return .failure(BaselineError(description: "Python keyring is not using the Secret Service here"))
        }
        var figures: [String: Double] = [:]
        for operation in ["get", "set"] { figures[operation] = json[operation] as? Double }
        return .success(figures)
    }
}
