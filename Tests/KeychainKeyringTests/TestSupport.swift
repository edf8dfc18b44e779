import Foundation
import KeychainCore
import Testing

/// The error `body` throws, which must be a `KeychainError` with `status`.
@discardableResult
func expectKeychainError<Result>(_ status: OSStatus, sourceLocation: SourceLocation = #_sourceLocation,
                                 _ body: () throws -> Result) -> KeychainError? {
    do {
        _ = try body()
        Issue.record("expected OSStatus \(status), but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as KeychainError {
        #expect(error.status == status, "got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a KeychainError with OSStatus \(status), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A service name no other test or earlier run uses.
func uniqueService(_ purpose: String) -> String {
    "lkc-keyring-test-\(purpose)-\(UUID().uuidString.prefix(8).lowercased())"
}

func genericItem(_ service: String, _ account: String, _ secret: Data,
                 _ extra: [AttributeKey: AttributeValue] = [:]) -> KeychainItem {
    var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
    values.merge(extra) { _, new in new }
    return KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes(values), secret: SecretBytes(secret))
}

func exactQuery(_ service: String, _ account: String, secrets: Bool) -> ItemQuery {
    ItemQuery(itemClass: .genericPassword,
              constraints: ItemAttributes([.service: .string(service), .account: .string(account)]),
              limit: .one, includeSecrets: secrets)
}
