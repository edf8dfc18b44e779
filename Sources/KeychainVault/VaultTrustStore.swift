import Foundation
import KeychainCore

/// What `VAULT_CACERT` can mean on Linux.
///
/// FoundationNetworking on Linux verifies TLS through libcurl with the system's CA bundle and
/// offers no API to use another one. Checked with this toolchain (Swift 6.3.1, Debian 12):
/// `URLSessionConfiguration` has no trust setting; server-trust challenges never reach the
/// session's or the task's delegate; `SSL_CERT_FILE`, `CURL_CA_BUNDLE` and
/// `URLSessionCertificateAuthorityInfoFile` (honoured only in Android builds) are all ignored;
/// a CA appended to `/etc/ssl/certs/ca-certificates.crt` is trusted. So a private CA works
/// only once it is in the system trust store. Rather than ignore `VAULT_CACERT`, the
/// backend checks that every certificate in it is already in that store, and otherwise fails
/// with instructions; a private CA is then trusted next to the public ones.
enum VaultTrustStore {
    /// The bundles libcurl and FoundationNetworking look for, in their order.
    static let systemBundles = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/usr/share/ssl/certs/ca-bundle.crt",
        "/usr/local/share/certs/ca-root-nss.crt",
        "/etc/ssl/cert.pem",
    ]

    /// Throws `errSecNotAvailable` unless every certificate in `caFile` is in the system bundle.
    static func requireSystemTrust(ofCertificatesIn caFile: String, bundles: [String] = systemBundles) throws {
        guard let caText = FileManager.default.contents(atPath: caFile) else {
            throw KeychainError(errSecNotAvailable, "VAULT_CACERT names \(caFile), which cannot be read.",
                                backend: VaultBackend.backendName, failedCall: "open")
        }
        let wanted = certificates(inPEM: caText)
        guard !wanted.isEmpty else {
            throw KeychainError(errSecNotAvailable, "VAULT_CACERT names \(caFile), which holds no PEM certificate.",
                                backend: VaultBackend.backendName)
        }
        let bundle = bundles.first { FileManager.default.fileExists(atPath: $0) }
        let trusted = bundle.flatMap { FileManager.default.contents(atPath: $0) }.map(certificates(inPEM:)) ?? []
        guard wanted.isSubset(of: trusted) else {
            throw KeychainError(errSecNotAvailable, """
                VAULT_CACERT (\(caFile)) cannot be applied: FoundationNetworking on Linux only trusts the system CA bundle\
                \(bundle.map { " (\($0))" } ?? ""). Install the CA there (Debian/Ubuntu: copy it to \
                /usr/local/share/ca-certificates/vault-ca.crt and run update-ca-certificates), or unset VAULT_CACERT \
                if the server's certificate is already publicly trusted.
                """, backend: VaultBackend.backendName)
        }
    }

    /// The DER bytes of every certificate in a PEM text.
    static func certificates(inPEM pem: Data) -> Set<Data> {
        let text = String(decoding: pem, as: UTF8.self)
        var found = Set<Data>()
        var body: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                body = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                if let encoded = body, let der = Data(base64Encoded: encoded) { found.insert(der) }
                body = nil
            } else if body != nil {
                body! += trimmed
            }
        }
        return found
    }
}
