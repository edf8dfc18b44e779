package import KeychainCore
package import Testing

/// The `KeychainError` that `body` throws; records an issue and returns nil when it throws
/// something else or nothing.
@discardableResult
package func keychainError<Result>(sourceLocation: SourceLocation = #_sourceLocation,
                                   _ body: () throws -> Result) -> KeychainError? {
    do {
        _ = try body()
        Issue.record("expected a KeychainError, but the call succeeded", sourceLocation: sourceLocation)
    } catch let error as KeychainError {
        return error
    } catch {
        Issue.record("expected a KeychainError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The `KeychainError` that `body` throws, which must carry `status`; records an issue otherwise.
@discardableResult
package func expectKeychainError<Result>(_ status: OSStatus, sourceLocation: SourceLocation = #_sourceLocation,
                                         _ body: () throws -> Result) -> KeychainError? {
    guard let error = keychainError(sourceLocation: sourceLocation, body) else { return nil }
    #expect(error.status == status, "expected OSStatus \(status), got \(error)", sourceLocation: sourceLocation)
    return error
}
