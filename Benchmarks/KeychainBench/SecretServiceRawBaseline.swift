import CSecretServiceBaseline
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
        guard csecretservicebaseline_load(&reason, reason.count) == 0 else {
            throw BaselineError(description: "libsecret could not be loaded: \(Self.text(reason))")
        }
    }

    private func store() throws {
        var message = [CChar](repeating: 0, count: 512)
        guard csecretservicebaseline_password_store(service, "raw", password, &message, message.count) == 0 else {
            throw BaselineError(description: "secret_password_store_sync failed: \(Self.text(message))")
        }
    }

    let addName = "secret_password_store_sync"

    /// Each under an account of its own, left in the throwaway collection.
    func addMany(_ count: Int) throws -> Double {
        try seconds {
            for index in 0..<count {
                var message = [CChar](repeating: 0, count: 512)
                guard csecretservicebaseline_password_store(service, "bundle-\(index)", password, &message, message.count) == 0 else {
                    throw BaselineError(description: "secret_password_store_sync failed: \(Self.text(message))")
                }
            }
        }
    }

    func measureSet(iterations: Int) throws -> LatencySample {
        try LatencySample.measure(iterations: iterations) { _ in try store() }
    }

    func measureGet(iterations: Int) throws -> LatencySample {
        try store()
        return try LatencySample.measure(iterations: iterations) { _ in
            var message = [CChar](repeating: 0, count: 512)
            guard let found = csecretservicebaseline_password_lookup(service, "raw", &message, message.count) else {
                throw BaselineError(description: "secret_password_lookup_sync found nothing: \(Self.text(message))")
            }
            csecretservicebaseline_password_free(found)
        }
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
