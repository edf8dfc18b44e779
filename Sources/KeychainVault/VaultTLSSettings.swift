import Foundation

/// How requests verify the server and identify this machine over TLS, with the `vault` CLI's
/// meanings. Every field left nil means libcurl's default: the system trust store, no client
/// certificate, the address's host name.
public struct VaultTLSSettings: Sendable, Equatable {
    /// A PEM file of CA certificates to trust instead of the system's (`VAULT_CACERT`).
    public var caFile: String?
    /// The PEM certificates of every file in `VAULT_CAPATH`, read once, trusted instead of the
    /// system's. The `vault` CLI reads the folder's files itself rather than expecting
    /// OpenSSL's hashed names, so this does too. Ignored when `caFile` is set, as by the CLI.
    public var caPEM: Data?
    /// The client certificate and its key, PEM files (`VAULT_CLIENT_CERT`, `VAULT_CLIENT_KEY`).
    public var clientCertificate: String?
    public var clientKey: String?
    /// The name sent in SNI and checked against the server's certificate instead of the
    /// address's host (`VAULT_TLS_SERVER_NAME`).
    public var serverName: String?
    /// Accept any server certificate (`VAULT_SKIP_VERIFY`). Every request made so warns on stderr.
    public var skipVerify: Bool

    public init(caFile: String? = nil, caPEM: Data? = nil, clientCertificate: String? = nil, clientKey: String? = nil,
                serverName: String? = nil, skipVerify: Bool = false) {
        self.caFile = caFile
        self.caPEM = caPEM
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.serverName = serverName
        self.skipVerify = skipVerify
    }
}
