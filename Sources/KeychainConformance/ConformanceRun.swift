import Foundation
public import KeychainCore

/// What a test harness should do with one case on one backend.
public enum ConformanceOutcome: Sendable, Equatable {
    case passed
    /// The case could not run here; report it as skipped with this reason, never as passed.
    case skipped(String)
}

extension ConformanceCase {
    /// True when `KEYCHAIN_REQUIRE_ALL_BACKENDS` is `1`, as in CI, which provides every backend.
    public static var unavailableIsFailure: Bool {
        ProcessInfo.processInfo.environment["KEYCHAIN_REQUIRE_ALL_BACKENDS"] == "1"
    }

    /// Runs the case on `backend` if it is available here.
    ///
    /// An unavailable backend is skipped with its reason, unless `requireAll`, where it is a failure.
    public func outcome(on backend: any KeychainBackend, context: ConformanceContext,
                        requireAll: Bool = ConformanceCase.unavailableIsFailure) throws -> ConformanceOutcome {
        if case .unavailable(let reason) = backend.availability() {
            let text = "backend '\(backend.name)' is unavailable here: \(reason.message)"
            if requireAll { throw ConformanceFailure(text + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)") }
            return .skipped(text)
        }
        do {
            try run(on: backend, context: context)
            return .passed
        } catch let skip as ConformanceSkip {
            if requireAll { throw ConformanceFailure(skip.description + " (KEYCHAIN_REQUIRE_ALL_BACKENDS=1)") }
            return .skipped(skip.description)
        }
    }
}
