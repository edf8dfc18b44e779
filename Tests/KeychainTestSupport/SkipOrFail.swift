import Foundation
import KeychainConformance
package import KeychainCore
package import Testing

/// Ends the running test as skipped, with `reason` printed in its result, because something it
/// needs is missing here (a service, a tool, a permission). Under KEYCHAIN_REQUIRE_ALL_BACKENDS=1
/// (CI, which provides everything) the test fails with the reason instead, so nothing a test
/// needs is ever passed over silently.
package func skipOrFail(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Never {
    if ConformanceCase.unavailableIsFailure { throw ConformanceFailure(reason + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)") }
    try skip(reason, sourceLocation: sourceLocation)
}

/// Skips the running test, naming the backend and its reason, when `backend` cannot run here
/// (fails it under KEYCHAIN_REQUIRE_ALL_BACKENDS=1, see `skipOrFail`).
package func requireAvailable(_ backend: any KeychainBackend, sourceLocation: SourceLocation = #_sourceLocation) throws {
    if case .unavailable(let reason) = backend.availability() {
        try skipOrFail("backend '\(backend.name)' is unavailable here: \(reason.message)", sourceLocation: sourceLocation)
    }
}

/// Cancels the running test, or the running case of a parameterized test, with `reason`.
///
/// Swift Testing's console output shows a cancelled test with its reason, but reports a
/// parameterized test whose cases were all cancelled as passed, without a word. So a case's
/// reason also goes to standard error, with the test's name.
package func skip(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Never {
    if Test.Case.current?.isParameterized == true {
        FileHandle.standardError.write(Data("➜ a case of \(Test.current?.name ?? "a test") was skipped: \(reason)\n".utf8))
    }
    try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
}
