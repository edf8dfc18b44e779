package import KeychainConformance
package import KeychainCore
package import Testing

/// Runs one conformance case on `backend`. A case the backend cannot run here skips the test
/// with the suite's reason; an unavailable backend under KEYCHAIN_REQUIRE_ALL_BACKENDS=1 and any
/// broken contract fail it.
package func runConformance(_ testCase: ConformanceCase, on backend: any KeychainBackend, context: ConformanceContext,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
    if case .skipped(let reason) = try testCase.outcome(on: backend, context: context) {
        try skip(reason, sourceLocation: sourceLocation)
    }
}
