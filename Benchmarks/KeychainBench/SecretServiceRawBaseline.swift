import CSecretService
import Foundation

/// libsecret's own one-call functions, `secret_password_storev_sync` and
/// `secret_password_lookupv_sync`, on the same (service, username) attributes, in-process:
/// what a plain libsecret program pays per call.
struct SecretServiceRawBaseline: RawBaseline {
    let getName = "secret_password_lookup_sync"
    let setName = "secret_password_store_sync"
    private let service = "keychain-bench-raw-\(ProcessInfo.processInfo.processIdentifier)"
    private let password = String(repeating: "Z", count: 32)

    init() throws {
        var reason = [CChar](repeating: 0, count: 512)
        guard csecretservice_load(nil, &reason, reason.count) == 0 else {
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw BaselineError(description: "libsecret could not be loaded: \(text)")
        }
    }

    private func store() throws {
        var error = CSecretServiceError()
        guard csecretservice_password_store(service, "raw", password, &error) == 0 else {
            throw BaselineError(description: "secret_password_store_sync failed: \(Self.message(error))")
        }
    }

    func measureSet(iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations) { _ in try store() }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        try store()
        return try LatencySample.measure(iterations: iterations) { _ in
            var error = CSecretServiceError()
            guard let found = csecretservice_password_lookup(service, "raw", &error) else {
                throw BaselineError(description: "secret_password_lookup_sync found nothing: \(Self.message(error))")
            }
            csecretservice_password_free(found)
        }
    }

    private static func message(_ error: CSecretServiceError) -> String {
        withUnsafeBytes(of: error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
