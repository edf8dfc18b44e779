import Foundation
import KeychainConformance
import KeychainTestSupport
import KeychainVault

/// A private CA made with openssl for one test, and an OpenBao dev server with two more
/// listeners that use its certificates: `tlsAddress` (server certificate only) and
/// `mutualAddress` (`tls_require_and_verify_client_cert`). The dev listener, plain HTTP at
/// `adminAddress`, is for `bao` commands that set the server up.
final class VaultTLSServer {
    static let serverName = "vault.lkc.test"

    let directory: URL
    let rootToken = "tls-fixture-root"
    let adminAddress: String
    let tlsAddress: String
    let mutualAddress: String
    private let server: TestServerProcess

    var caFile: String { path("ca.pem") }
    /// A CA that signed nothing the server uses.
    var otherCAFile: String { path("other-ca.pem") }
    var clientCertificate: String { path("client.pem") }
    var clientKey: String { path("client.key") }

    init() throws {
        _ = try VaultTestServer.root()
        directory = try makeScratchDirectory("lkc-vault")
        try Self.makeCertificates(in: directory)
        let tlsPort = try VaultTestServer.unusedPort()
        let mutualPort = try VaultTestServer.unusedPort()
        let config = directory.appendingPathComponent("listeners.hcl")
        let listeners = """
            listener "tcp" {
              address = "127.0.0.1:\(tlsPort)"
              cluster_address = "127.0.0.1:\(try VaultTestServer.unusedPort())"
              tls_cert_file = "\(directory.path)/server.pem"
              tls_key_file = "\(directory.path)/server.key"
            }
            listener "tcp" {
              address = "127.0.0.1:\(mutualPort)"
              cluster_address = "127.0.0.1:\(try VaultTestServer.unusedPort())"
              tls_cert_file = "\(directory.path)/server.pem"
              tls_key_file = "\(directory.path)/server.key"
              tls_require_and_verify_client_cert = true
              tls_client_ca_file = "\(directory.path)/ca.pem"
            }
            """
        try Data(listeners.utf8).write(to: config)
        server = try TestServerProcess.baoDevServer(token: rootToken, configFile: config)
        adminAddress = server.address
        tlsAddress = "https://127.0.0.1:\(tlsPort)"
        mutualAddress = "https://127.0.0.1:\(mutualPort)"
    }

    deinit {
        stop()
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `bao` against the dev listener with the root token.
    func bao(_ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try VaultTestServer.bao(arguments, input: input, environment: ["VAULT_ADDR": adminAddress, "VAULT_TOKEN": rootToken])
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// ca.pem/key, other-ca.pem/key, server.pem/key (for 127.0.0.1 and `serverName`, not
    /// localhost), client.pem/key, each signed by ca.pem.
    private static func makeCertificates(in directory: URL) throws {
        let openssl = try VaultTestServer.executable("openssl")
        func run(_ arguments: [String]) throws {
            let result = try KeychainCLIProcess.run(openssl, arguments)
            guard result.status == 0 else { throw ConformanceFailure("openssl \(arguments.first ?? "") failed: \(result.errorText)") }
        }
        let folder = directory.path + "/"
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ["ca", "other-ca"] {
            try run(["req", "-x509"] + key + ["-keyout", "\(folder)\(ca).key", "-out", "\(folder)\(ca).pem", "-days", "2", "-subj", "/CN=linux-keychain test \(ca)"])
        }
        let extensions = [
            "server": "subjectAltName=DNS:\(serverName),IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
            "client": "extendedKeyUsage=clientAuth\n",
        ]
        for (name, text) in extensions {
            try Data(text.utf8).write(to: directory.appendingPathComponent("\(name).ext"))
            try run(["req"] + key + ["-keyout", "\(folder)\(name).key", "-out", "\(folder)\(name).csr", "-subj", "/CN=linux-keychain test \(name)"])
            try run(["x509", "-req", "-in", "\(folder)\(name).csr", "-CA", "\(folder)ca.pem", "-CAkey", "\(folder)ca.key", "-CAcreateserial",
                     "-out", "\(folder)\(name).pem", "-days", "2", "-extfile", "\(folder)\(name).ext"])
        }
    }
}
