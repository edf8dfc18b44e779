import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// Each failure the issue lists, produced for real: a restricted token, a dead address, a
/// sealed server, a missing mount, a server that fails or hangs.
@Suite("vault backend failures are fast and clear")
struct VaultFailureTests {
    let prefix = VaultTestServer.uniquePrefix("failures")

    @Test func restrictedTokenIsRefusedOutsideItsPolicy() throws {
        let policyName = "lkc-\(UUID().uuidString.prefix(8).lowercased())"
        // docs/vault.md's fleet policy, narrowed to one service.
        let policy = """
            path "secret/data/\(prefix)/generic/allowed/*" { capabilities = ["create", "read", "update", "patch"] }
            path "secret/metadata/\(prefix)/generic/allowed/*" { capabilities = ["list", "delete"] }
            """
        let written = try VaultTestServer.bao(["policy", "write", policyName, "-"], input: Data(policy.utf8))
        #expect(written.status == 0, "\(written.errorText)")
        let created = try VaultTestServer.bao(["token", "create", "-policy=\(policyName)", "-field=token"])
        let token = created.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(created.status == 0 && !token.isEmpty, "\(created.errorText)")

        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix, token: token))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("allowed", "a", Data("inside".utf8)))
        #expect(try storedSecret(backend, "allowed", "a") == Data("inside".utf8))

        let write = keychainError { try backend.add(genericItem("forbidden", "a", Data("x".utf8))) }
        #expect(write?.status == errSecAuthFailed, "\(String(describing: write))")
        let read = keychainError { _ = try backend.search(exactQuery("forbidden", "a")) }
        #expect(read?.status == errSecAuthFailed, "\(String(describing: read))")
        for error in [write, read].compactMap({ $0 }) {
            #expect(!error.description.contains(token), "the token leaked into an error")
        }
        #expect(try backend.delete(exactQuery("allowed", "a")) == 1)
    }

    @Test func invalidTokenIsAuthFailedAndNeverShown() throws {
        let token = "s.not-a-real-token-\(UUID().uuidString)"
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix, token: token))
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a bad token was reported available")
            return
        }
        #expect(reason.status == errSecAuthFailed)
        let error = keychainError { try backend.add(genericItem("s", "a", Data("x".utf8))) }
        #expect(error?.status == errSecAuthFailed)
        for text in [reason.description, error?.description ?? ""] { #expect(!text.contains(token)) }
    }

    @Test func deadAddressIsNotAvailableWithinTwoSeconds() throws {
        let port = try VaultTestServer.unusedPort()
        let backend = VaultBackend(configuration: try VaultConfiguration(address: "http://127.0.0.1:\(port)",
                                                                        token: VaultToken("irrelevant"), prefix: prefix))
        let started = Date()
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a dead address was reported available")
            return
        }
        #expect(reason.status == errSecNotAvailable)
        #expect(Date().timeIntervalSince(started) < 2, "availability took \(Date().timeIntervalSince(started)) s")

        let operationStarted = Date()
        let error = keychainError { try backend.add(genericItem("s", "a", Data("x".utf8))) }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true, "\(String(describing: error))")
        #expect(Date().timeIntervalSince(operationStarted) < 2)
    }

    @Test func sealedServerIsNotAvailableAndSaysSealed() throws {
        let server = try TestServerProcess.baoDevServer(token: "sealed-test-root")
        defer { server.stop() }
        let settings = ["VAULT_ADDR": server.address, "VAULT_TOKEN": "sealed-test-root"]
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address,
                                                                        token: VaultToken("sealed-test-root"), prefix: prefix))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        let sealed = try VaultTestServer.bao(["operator", "seal"], environment: settings)
        try #require(sealed.status == 0, "\(sealed.errorText)")

        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a sealed server was reported available")
            return
        }
        #expect(reason.status == errSecNotAvailable)
        #expect(reason.message.contains("sealed"), "\(reason.message)")
        let error = keychainError { try backend.add(genericItem("s", "a", Data("x".utf8))) }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("sealed") == true, "\(String(describing: error))")
    }

    @Test func missingMountIsNotAvailable() throws {
        let root = try VaultTestServer.root()
        let backend = VaultBackend(configuration: try VaultConfiguration(address: root.address, token: VaultToken(root.token),
                                                                        mount: "no-such-mount", prefix: prefix))
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a missing mount was reported available")
            return
        }
        #expect(reason.status == errSecNotAvailable && reason.message.contains("no-such-mount"), "\(reason)")
        let error = keychainError { _ = try backend.search(exactQuery("s", "a")) }
        #expect(error?.status == errSecNotAvailable, "a missing mount must not look like a missing item")
    }

    @Test func kvVersionOneMountIsRefused() throws {
        let mount = "lkc-kv1-\(UUID().uuidString.prefix(8).lowercased())"
        let enabled = try VaultTestServer.bao(["secrets", "enable", "-path=\(mount)", "-version=1", "kv"])
        try #require(enabled.status == 0, "\(enabled.errorText)")
        let root = try VaultTestServer.root()
        let backend = VaultBackend(configuration: try VaultConfiguration(address: root.address, token: VaultToken(root.token),
                                                                        mount: mount, prefix: prefix))
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a KV version 1 mount was reported available")
            return
        }
        #expect(reason.message.contains("not KV version 2"), "\(reason.message)")
    }

    /// Larger than the server takes: a raft cluster's entry limit (8 MiB here), or any
    /// server's request limit (32 MiB by default). Not a "retry later" I/O failure: retrying
    /// cannot help. Nothing is stored.
    @Test func itemTooLargeForTheServerIsDataTooLargeAndStoresNothing() throws {
        let throughCluster = ProcessInfo.processInfo.environment["LINUX_KEYCHAIN_TEST_VAULT"] == "cluster"
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        let size = (throughCluster ? 12 : 40) << 20
        let error = keychainError { try backend.add(genericItem("huge", "a", Data(repeating: 0x61, count: size))) }
        #expect(error?.status == errSecDataTooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("too large") == true, "\(String(describing: error?.message))")
        #expect(try storedSecret(backend, "huge", "a") == nil)
    }

    @Test func serverErrorIsIO() throws {
        let server = try TestServerProcess.misbehaving("fail")
        defer { server.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("t"), prefix: prefix))
        let error = keychainError { _ = try backend.search(exactQuery("s", "a")) }
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(error?.message.contains("HTTP 500") == true)
    }

    /// A server's text reaches the message without its control characters, so a hostile server
    /// cannot drive the terminal the message is printed on.
    @Test func serverTextLosesItsControlCharacters() throws {
        let server = try TestServerProcess.misbehaving("hostile")
        defer { server.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("t"), prefix: prefix))
        let error = keychainError { _ = try backend.search(exactQuery("s", "a")) }
        let message = error?.message ?? ""
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(message.contains("red bell del c1"), "\(message)")
        #expect(message.contains("evil end"), "\(message)")
        let control = message.unicodeScalars.filter { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }
        #expect(control.isEmpty, "control characters left: \(control.map { String($0.value, radix: 16) }) in \(message.debugDescription)")
        #expect(!message.contains("title") && !message.contains("[31m"), "an escape sequence's body was left: \(message.debugDescription)")

        let cli = try KeychainCLIProcess.run(try builtCLI(), ["--backend", "vault", "get", "s", "a"],
                                             environment: ["VAULT_ADDR": server.address, "VAULT_TOKEN": "t", "KEYCHAIN_VAULT_PREFIX": prefix])
        #expect(cli.status != 0)
        #expect(cli.errorText.contains("red bell"), "\(cli.errorText)")
        #expect(!cli.errorText.contains("\u{1b}") && !cli.errorText.contains("\u{7}"), "\(cli.errorText.debugDescription)")
    }

    /// A redirect is refused rather than followed, so the token is never sent to another host.
    @Test func redirectIsRefused() throws {
        let server = try TestServerProcess.misbehaving("redirect")
        defer { server.stop() }
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("t"), prefix: prefix))
        let error = keychainError { _ = try backend.search(exactQuery("s", "a")) }
        #expect(error?.status == errSecNotAvailable, "\(String(describing: error))")
        #expect(error?.message.contains("redirected") == true, "\(String(describing: error))")
    }

    @Test func silentServerTimesOutAsIOAndProbesAsNotAvailable() throws {
        let server = try TestServerProcess.misbehaving("hang")
        defer { server.stop() }
        // The default probe timeout (1 s) and a sub-second operation timeout.
        let backend = VaultBackend(configuration: try VaultConfiguration(address: server.address, token: VaultToken("t"), prefix: prefix,
                                                                        requestTimeout: 0.5))
        let started = Date()
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("a server that never answers was reported available")
            return
        }
        #expect(reason.status == errSecNotAvailable, "\(reason)")
        #expect(Date().timeIntervalSince(started) < 2, "availability took \(Date().timeIntervalSince(started)) s")
        let error = keychainError { _ = try backend.search(exactQuery("s", "a")) }
        #expect(error?.status == errSecIO, "\(String(describing: error))")
        #expect(error?.message.contains("KEYCHAIN_VAULT_TIMEOUT") == true)
    }
}
