import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
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
        try runConformance(testCase, on: Self.backend, context: ConformanceContext(backendName: "file"))
    }
}
