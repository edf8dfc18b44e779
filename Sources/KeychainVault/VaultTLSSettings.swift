public import FoundationEssentials
import Glibc
import KeychainCore

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
    /// The client certificate's private key, a PEM file (`VAULT_CLIENT_KEY`).
    public var clientKey: String?
    /// The name sent in SNI and checked against the server's certificate instead of the
    /// address's host (`VAULT_TLS_SERVER_NAME`).
    public var serverName: String?
    /// Accept any server certificate (`VAULT_SKIP_VERIFY`). Every request made so warns on stderr.
    public var skipVerify: Bool

    /// TLS settings; the defaults trust the system's CAs and present no certificate.
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

extension VaultTLSSettings {
    /// Reads the `vault` CLI's TLS variables through `setting` (which looks up `BAO_<name>`,
    /// then `VAULT_<name>`, and returns the variable it used with its value).
    ///
    /// Files are checked here, so a wrong path is one clear error before any request: a CA file
    /// or client certificate that cannot be read, a CA folder without certificates, a client
    /// certificate without its key (or the reverse), or a `SKIP_VERIFY` that is not a boolean
    /// as Go's `strconv.ParseBool` reads it, are all `errSecParam`.
    static func fromEnvironment(_ setting: (String) -> (variable: String, value: String)?) throws -> VaultTLSSettings {
        var settings = VaultTLSSettings()
        if let (variable, path) = setting("CACERT") {
            try requireReadableFile(path, variable: variable)
            settings.caFile = path
        } else if let (variable, path) = setting("CAPATH") {
            settings.caPEM = try certificates(inFolder: path, variable: variable)
        }
        let certificate = setting("CLIENT_CERT")
        let key = setting("CLIENT_KEY")
        switch (certificate, key) {
        case let ((certificateVariable, certificatePath)?, (keyVariable, keyPath)?):
            try requireReadableFile(certificatePath, variable: certificateVariable)
            try requireReadableFile(keyPath, variable: keyVariable)
            settings.clientCertificate = certificatePath
            settings.clientKey = keyPath
        case let ((variable, _)?, nil):
            throw invalid("\(variable) is set but VAULT_CLIENT_KEY (or BAO_CLIENT_KEY) is not: a client certificate needs its private key.")
        case let (nil, (variable, _)?):
            throw invalid("\(variable) is set but VAULT_CLIENT_CERT (or BAO_CLIENT_CERT) is not: a client key needs its certificate.")
        case (nil, nil):
            break
        }
        if let (variable, name) = setting("TLS_SERVER_NAME") {
            guard !name.contains(where: { $0.isWhitespace || $0 == ":" || $0 == "/" || $0 == "\0" }) else {
                throw invalid("\(variable) must be a host name such as vault.example.com, not '\(name)'.")
            }
            settings.serverName = name
        }
        if let (variable, text) = setting("SKIP_VERIFY") {
            switch text {
            case "1", "t", "T", "TRUE", "true", "True": settings.skipVerify = true
            case "0", "f", "F", "FALSE", "false", "False": settings.skipVerify = false
            default: throw invalid("\(variable) must be true or false (or 1 or 0), not '\(text)'.")
            }
        }
        return settings
    }

    private static func requireReadableFile(_ path: String, variable: String) throws {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory,
              FileManager.default.isReadableFile(atPath: path) else {
            throw invalid("\(variable) names \(path), which is not a readable file.")
        }
    }

    /// The certificates of every file in `folder`, as one PEM text. As with the `vault` CLI,
    /// every file must hold at least one certificate.
    private static func certificates(inFolder folder: String, variable: String) throws -> Data {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw invalid("\(variable) names \(folder), which is not a readable folder.")
        }
        var bundle = Data()
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = "\(folder)/\(name)"
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else { continue }
            guard let contents = FileManager.default.contents(atPath: path),
                  String(decoding: contents, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                throw invalid("\(variable): the file \(path) holds no PEM certificate; a CA folder holds only certificates.")
            }
            bundle.append(contents)
            bundle.append(UInt8(ascii: "\n"))
        }
        guard !bundle.isEmpty else { throw invalid("\(variable) names \(folder), which holds no certificate.") }
        return bundle
    }

    private static func invalid(_ message: String) -> KeychainError {
        KeychainError(errSecParam, message, backend: VaultBackend.backendName)
    }
}
