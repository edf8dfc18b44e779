import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import Testing

/// The shared suite on the `file` backend as the environment configures it
/// (`scripts/with-services.sh` sets KEYCHAIN_FILE_DIR and KEYCHAIN_FILE_PASSPHRASE), including
/// "processes", which drives the built `linux-keychain` CLI against the same store.
@Suite("file backend conformance")
struct FileConformanceTests {
    // One backend for the whole run, as a process would have; the cases use separate names.
    static let backend = EncryptedFileBackend()

    @Test(arguments: KeychainConformance.cases)
    func conformance(_ testCase: ConformanceCase) throws {
        if case .skipped(let reason) = try testCase.outcome(on: Self.backend, context: ConformanceContext(backendName: "file")) {
            try Test.cancel(Comment(rawValue: reason))
        }
    }
}
