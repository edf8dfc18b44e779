import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// The OpenBao dev server that scripts/with-services.sh starts, and helpers around it.
enum VaultTestServer {
    /// The dev server's address and root token. Without them the test is skipped, or fails
    /// when KEYCHAIN_REQUIRE_ALL_BACKENDS=1 (CI provides every backend).
    static func root() throws -> (address: String, token: String) {
        let environment = ProcessInfo.processInfo.environment
        guard let address = environment["VAULT_ADDR"], let token = environment["VAULT_TOKEN"] else {
            try skipOrFail("no OpenBao server: run under scripts/with-services.sh, which exports VAULT_ADDR and VAULT_TOKEN")
        }
        return (address, token)
    }

    /// A prefix no other test uses, so each test sees only its own items.
    static func uniquePrefix(_ label: String) -> String {
        "lkc-test/\(label)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A configuration for the dev server under `prefix`, with the root token unless another is given.
    static func configuration(prefix: String, token: String? = nil) throws -> VaultConfiguration {
        let root = try root()
        return try VaultConfiguration(address: root.address, token: VaultToken(token ?? root.token), prefix: prefix)
    }

    /// The environment a CLI process needs to reach the same items: the dev server, the root
    /// token and the prefix.
    static func cliEnvironment(prefix: String) throws -> [String: String] {
        let root = try root()
        return ["VAULT_ADDR": root.address, "VAULT_TOKEN": root.token, "KEYCHAIN_VAULT_PREFIX": prefix]
    }

    /// Runs the `bao` CLI against the dev server with the root token.
    static func bao(_ arguments: [String], input: Data? = nil, environment: [String: String] = [:]) throws -> KeychainCLIProcess.Result {
        let root = try root()
        // On the cluster, what a test sets up goes to the leader, which has a new mount ready
        // first; a standby refuses it for a moment ("Waiting for the primary to upgrade").
        let address = VaultTestCluster.leader ?? root.address
        let settings = ["VAULT_ADDR": address, "VAULT_TOKEN": root.token].merging(environment) { _, new in new }
        var result = try KeychainCLIProcess.run(try executable("bao"), arguments, input: input, environment: settings)
        let deadline = Date().addingTimeInterval(5)
        while VaultTestCluster.isActive, result.errorText.contains("Waiting for the primary to upgrade"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            result = try KeychainCLIProcess.run(try executable("bao"), arguments, input: input, environment: settings)
        }
        try VaultTestCluster.awaitReplication()
        return result
    }

    /// The full path of `name` on PATH.
    static func executable(_ name: String) throws -> String {
        guard let path = pathOnPATH(name) else { throw ConformanceFailure("\(name) is not on PATH; run scripts/install-deps.sh") }
        return path
    }

    /// A TCP port on 127.0.0.1 that nothing listens on (bound, then released), and that no
    /// earlier call in this process returned: tests run in parallel, and a port released here
    /// can be handed out again before the server meant for it has bound it, so two servers
    /// would be given one port, and the one that lost the race would be taken for the other.
    static func unusedPort() throws -> Int {
        for _ in 0..<20 {
            let probe = try KeychainCLIProcess.run(try executable("python3"), ["-c",
                "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
            guard let port = Int(probe.outputText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ConformanceFailure("could not find a free port: \(probe.errorText)")
            }
            if handedOutPorts.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw ConformanceFailure("could not find a free port that no other test of this process was given")
    }

    /// Keeps `unusedPort` from returning `port`, which a server will bind without having asked
    /// for it (a dev server's cluster listener, one above its API port).
    static func reserve(_ port: Int) {
        handedOutPorts.withLock { _ = $0.insert(port) }
    }

    private static let handedOutPorts = Locked<Set<Int>>([])
}

/// A server process a test starts and stops itself: a second OpenBao dev server (to seal, or
/// with TLS) or a misbehaving HTTP server.
final class TestServerProcess {
    let address: String
    private let process = Process()
    private var stopped = false

    /// Starts `bao server -dev` on a free port with its own HOME (the dev server writes
    /// ~/.vault-token), and waits until it answers.
    /// `configFile` adds the listeners (or other settings) it holds to the dev server's.
    static func baoDevServer(token: String, tlsDirectory: URL? = nil, configFile: URL? = nil) throws -> TestServerProcess {
        let port = try VaultTestServer.unusedPort()
        VaultTestServer.reserve(port + 1)
        let home = try makeScratchDirectory("lkc-vault")
        var arguments = ["server", "-dev", "-dev-listen-address=127.0.0.1:\(port)", "-dev-root-token-id=\(token)"]
        if let tlsDirectory { arguments += ["-dev-tls", "-dev-tls-cert-dir=\(tlsDirectory.path)"] }
        if let configFile { arguments.append("-config=\(configFile.path)") }
        let scheme = tlsDirectory == nil ? "http" : "https"
        let server = try TestServerProcess(address: "\(scheme)://127.0.0.1:\(port)", executable: try VaultTestServer.executable("bao"),
                                           arguments: arguments, environment: ["HOME": home.path])
        try server.waitUntilUp {
            var settings = ["VAULT_ADDR": server.address, "VAULT_TOKEN": token]
            if let tlsDirectory { settings["VAULT_CACERT"] = tlsDirectory.appendingPathComponent("vault-ca.pem").path }
            return try VaultTestServer.bao(["status"], environment: settings).status == 0
        }
        return server
    }

    /// `bao agent` with `configFile`, listening on `port`; waits until it accepts connections.
    static func baoAgent(configFile: URL, port: Int) throws -> TestServerProcess {
        let agent = try TestServerProcess(address: "http://127.0.0.1:\(port)", executable: try VaultTestServer.executable("bao"),
                                          arguments: ["agent", "-config=\(configFile.path)"], environment: [:])
        try agent.waitUntilUp { try isAccepting(port: port) }
        return agent
    }

    private static func isAccepting(port: Int) throws -> Bool {
        let connect = try KeychainCLIProcess.run(try VaultTestServer.executable("python3"), ["-c",
            "import socket; socket.create_connection(('127.0.0.1', \(port)), timeout=1).close()"])
        return connect.status == 0
    }

    /// An HTTP server that answers every request with `500 {"errors":["internal error"]}`
    /// (`mode` "fail"), redirects it to another port (`mode` "redirect"), accepts it and
    /// never answers (`mode` "hang"), answers 200 with a body that never ends, as fast as it
    /// can (`mode` "endless") or one byte every tenth of a second (`mode` "trickle"). `mode`
    /// "hostile" is "fail" with terminal escape sequences and other control characters in the
    /// error text.
    static func misbehaving(_ mode: String) throws -> TestServerProcess {
        let port = try VaultTestServer.unusedPort()
        let script = """
            import http.server, socketserver, sys, time
            class Handler(http.server.BaseHTTPRequestHandler):
                def answer(self):
                    if sys.argv[2] == "hang":
                        time.sleep(60)
                        return
                    if sys.argv[2] in ("endless", "trickle"):
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.end_headers()
                        chunk = b'{"data":"' + b"x" * 65536 if sys.argv[2] == "endless" else b" "
                        try:
                            while True:
                                self.wfile.write(chunk)
                                if sys.argv[2] == "trickle":
                                    self.wfile.flush()
                                    time.sleep(0.1)
                        except OSError:
                            return
                    if sys.argv[2] == "redirect":
                        self.send_response(307)
                        self.send_header("Location", "http://127.0.0.1:9" + self.path)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    body = b'{"errors":["internal error"]}'
                    if sys.argv[2] == "hostile":
                        body = b'{"errors":["\\u001b[31mred\\u001b[0m \\u001b]0;title\\u0007bell\\u0007 del\\u007f c1\\u009b2J\\u202eevil end"]}'
                    self.send_response(500)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                do_GET = do_POST = do_DELETE = answer
                def log_message(self, *args):
                    pass
            socketserver.ThreadingTCPServer.daemon_threads = True
            socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """
        return try pythonServer(script, port: port, arguments: [mode])
    }

    /// An HTTP proxy in front of `upstream` that appends `METHOD /v1/path` of every request it
    /// forwards to the file at `log`, so a test can count the requests an operation makes.
    static func recordingProxy(upstream: String, log: URL) throws -> TestServerProcess {
        let port = try VaultTestServer.unusedPort()
        let script = """
            import http.client, http.server, socketserver, sys, urllib.parse
            upstream = urllib.parse.urlsplit(sys.argv[2])
            log = open(sys.argv[3], "a", buffering=1)
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def forward(self):
                    length = int(self.headers.get("Content-Length") or 0)
                    body = self.rfile.read(length) if length else None
                    log.write(self.command + " " + self.path + "\\n")
                    connection = http.client.HTTPConnection(upstream.hostname, upstream.port)
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                    connection.request(self.command, self.path, body=body, headers=headers)
                    answer = connection.getresponse()
                    data = answer.read()
                    self.send_response(answer.status)
                    for k, v in answer.getheaders():
                        if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    connection.close()
                do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = forward
                def log_message(self, *args):
                    pass
            socketserver.ThreadingTCPServer.daemon_threads = True
            socketserver.ThreadingTCPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
            """
        return try pythonServer(script, port: port, arguments: [upstream, log.path])
    }

    /// A TCP forwarder in front of `upstream` (scripts/tcp-proxy.py) that appends to `log` a
    /// line `connection N` for each connection a client opens and `N METHOD TARGET` for each
    /// request sent on it, so a test can count both the connections and the requests of a process.
    /// `port` reopens a proxy on the port of one that was stopped. `faults` are tcp-proxy.py's
    /// fault options (`--drop-answer REGEX`, `--stall-answer REGEX`).
    static func countingProxy(upstream: String, log: URL, port: Int? = nil, faults: [String] = []) throws -> TestServerProcess {
        guard let components = URLComponents(string: upstream), let host = components.host, let upstreamPort = components.port else {
            throw ConformanceFailure("the upstream address \(upstream) names no host and port")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/tcp-proxy.py")
        let port = try port ?? VaultTestServer.unusedPort()
        let proxy = try TestServerProcess(address: "http://127.0.0.1:\(port)", executable: try VaultTestServer.executable("python3"),
                                          arguments: [script.path, String(port), host, String(upstreamPort), "--log", log.path] + faults,
                                          environment: [:])
        try proxy.waitUntilUp { try isAccepting(port: port) }
        // The check above was a connection too.
        try Data().write(to: log)
        return proxy
    }

    /// Runs `script` with the port as its first argument, then `arguments`, and waits until it
    /// accepts connections on that port.
    private static func pythonServer(_ script: String, port: Int, arguments: [String]) throws -> TestServerProcess {
        let server = try TestServerProcess(address: "http://127.0.0.1:\(port)", executable: try VaultTestServer.executable("python3"),
                                           arguments: ["-c", script, String(port)] + arguments, environment: [:])
        try server.waitUntilUp { try isAccepting(port: port) }
        return server
    }

    private init(address: String, executable: String, arguments: [String], environment: [String: String]) throws {
        self.address = address
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    private func waitUntilUp(_ isUp: () throws -> Bool) throws {
        for _ in 0..<100 {
            if try isUp() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        stop()
        throw ConformanceFailure("the test server at \(address) did not start within 10 s")
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        // SIGKILL, not terminate(): children of test threads inherit a signal mask that
        // blocks SIGTERM. waitUntilExit only once Foundation has seen the exit (called before,
        // it was seen to hang): until it is called, the run-loop source Foundation keeps for the
        // child holds the Process alive, which LeakSanitizer reports as a leak.
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if !process.isRunning { process.waitUntilExit() }
    }

    deinit { stop() }
}
