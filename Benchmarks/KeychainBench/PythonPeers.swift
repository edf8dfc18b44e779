import Foundation

/// The Python libraries users compare this one with, each timed per call in its own Python
/// process, on the store the backend of the same panel uses: Python `keyring` on the Secret
/// Service, `keyrings.cryptfile` (Python keyring's encrypted file) on `file`, and `hvac`
/// (Python's Vault client) on `vault`. Process start-up is not counted against them.
struct PythonPeer: Sendable {
    /// The name the report shows.
    let name: String
    /// The backend whose panel the peer stands in.
    let backend: String
    /// What to `pip install` when the import fails.
    let package: String
    /// Python that imports the library and defines `get()`, `put()` and `cleanup()`, with
    /// `service` (a name of its own) and `secret` defined; it may print an error and exit.
    let setup: String
    /// Why a call takes so long that the peer is measured over a few calls, and not at all
    /// in a `--quick` run; nil for a peer as fast as the rest.
    var slowBecause: String?

    /// A directory of Python packages only the peers use (`scripts/install-deps.sh` installs
    /// keyrings.cryptfile and hvac there), put first on the peers' `PYTHONPATH`.
    static let pythonPathVariable = "KEYCHAIN_BENCH_PYTHONPATH"

    static let all = [
        PythonPeer(name: "python-keyring", backend: "secret-service", package: "keyring", setup: """
        import keyring
        from keyring.backends import SecretService
        # Named, not chosen by priority: with other backends installed (keyrings.cryptfile
        # brings keyrings.alt), keyring would pick its chainer.
        keyring.set_keyring(SecretService.Keyring())
        if not SecretService.Keyring.viable:
            print(json.dumps({"error": "Python keyring finds no Secret Service here"})); sys.exit(0)
        def get(): keyring.get_password(service, "peer")
        def put(): keyring.set_password(service, "peer", secret)
        def cleanup(): keyring.delete_password(service, "peer")
        """),
        PythonPeer(name: "keyrings.cryptfile", backend: "file", package: "keyrings.cryptfile", setup: """
        import shutil, tempfile
        from keyrings.cryptfile.cryptfile import CryptFileKeyring
        directory = tempfile.mkdtemp(prefix="keychain-bench-cryptfile-")
        store = CryptFileKeyring()
        store.file_path = os.path.join(directory, "cryptfile.cfg")
        store.keyring_key = "keychain-bench-passphrase"
        def get(): store.get_password(service, "peer")
        def put(): store.set_password(service, "peer", secret)
        def cleanup(): shutil.rmtree(directory)
        """, slowBecause: "keyrings.cryptfile runs Argon2 on every call"),
        PythonPeer(name: "hvac", backend: "vault", package: "hvac", setup: """
        import hvac
        address = os.environ.get("VAULT_ADDR") or os.environ.get("BAO_ADDR")
        token = os.environ.get("VAULT_TOKEN") or os.environ.get("BAO_TOKEN")
        if not address or not token:
            print(json.dumps({"error": "VAULT_ADDR and VAULT_TOKEN are not set"})); sys.exit(0)
        client = hvac.Client(url=address, token=token)
        path = "keychain-bench-peer/" + service
        def get(): client.secrets.kv.v2.read_secret_version(path=path, mount_point="secret", raise_on_deleted_version=True)
        def put(): client.secrets.kv.v2.create_or_update_secret(path=path, secret={"password": secret}, mount_point="secret")
        def cleanup(): client.secrets.kv.v2.delete_metadata_and_all_versions(path=path, mount_point="secret")
        """),
    ]

    private var script: String {
        """
        import json, os, statistics, sys, time
        count, service, secret = int(sys.argv[1]), sys.argv[2], "Z" * 32
        try:
        \(setup.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n"))
        except ImportError:
            print(json.dumps({"error": "\(package) is not installed (scripts/install-deps.sh installs it for \(Self.pythonPathVariable)=.build/bench-python)"})); sys.exit(0)
        def p50(call):
            call()
            samples = []
            for _ in range(count):
                start = time.perf_counter_ns(); call(); samples.append((time.perf_counter_ns() - start) / 1000)
            return statistics.median(samples)
        put()
        try:
            result = {"get": p50(get), "set": p50(put)}
        finally:
            cleanup()
        print(json.dumps(result))
        """
    }

    /// p50 in microseconds per operation ("get", "set"), or the reason it could not be measured.
    func measure(quick: Bool, iterations standard: Int) -> Result<[String: Double], BaselineError> {
        if let slowBecause, quick {
            return .failure(BaselineError(description: "\(slowBecause); measured in the full run only"))
        }
        let count = slowBecause == nil ? standard : min(standard, 5)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(count), "keychain-bench-peer-\(ProcessInfo.processInfo.processIdentifier)"]
        var environment = ProcessInfo.processInfo.environment
        if let peersOnly = environment[Self.pythonPathVariable], !peersOnly.isEmpty {
            environment["PYTHONPATH"] = [peersOnly, environment["PYTHONPATH"]].compactMap { $0 }.joined(separator: ":")
        }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(BaselineError(description: "python3 could not start")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return .failure(BaselineError(description: "\(name) failed (exit \(process.terminationStatus))"))
        }
        if let error = json["error"] as? String { return .failure(BaselineError(description: error)) }
        var figures: [String: Double] = [:]
        for operation in ["get", "set"] { figures[operation] = json[operation] as? Double }
        return .success(figures)
    }
}
