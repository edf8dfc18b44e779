import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// A machine without libsecret: `KEYCHAIN_LIBSECRET_PATH` names a library that does not
    /// exist, as `dlopen` then sees it.
    @Suite("without libsecret")
    struct WithoutLibsecret {
        static let missingLibrary = "/nonexistent/linux-keychain-test/libsecret-1.so.0"

        @Test func backendReportsTheMissingLibrary() throws {
            let environment = ProcessInfo.processInfo.environment.merging([SecretServiceSettings.libraryVariable: Self.missingLibrary]) { _, new in new }
            let backend = SecretServiceBackend(settings: SecretServiceSettings(environment: environment))
            guard case .unavailable(let reason) = backend.availability() else {
                Issue.record("the backend claims to be available without libsecret")
                return
            }
            #expect(reason.status == errSecNotAvailable)
            #expect(reason.message.contains("libsecret could not be loaded"), "message: \(reason.message)")
            #expect(reason.message.contains(Self.missingLibrary), "message: \(reason.message)")
            expectKeychainError(errSecNotAvailable) {
                try backend.add(genericItem("a", "b", Data("x".utf8)))
            }
        }

        /// The program starts, says why the Secret Service cannot be used, and works with
        /// another backend.
        @Test func cliRunsWithoutLibsecret() throws {
            let cli = try SecretServiceTestSupport.cli()
            let environment = [SecretServiceSettings.libraryVariable: Self.missingLibrary]
            let get = try KeychainCLIProcess.run(cli, ["--backend", "secret-service", "get", "a", "b"], environment: environment)
            #expect(get.status != 0 && get.status != CLIExit.notFound, "exit status \(get.status)")
            #expect(get.errorText.contains("libsecret could not be loaded"), "stderr: \(get.errorText)")

            let backends = try KeychainCLIProcess.run(cli, ["backends"], environment: environment)
            #expect(backends.status == 0, "linux-keychain backends failed: \(backends.errorText)")
            let line = backends.outputText.split(separator: "\n").first { $0.hasPrefix("secret-service") }
            #expect(line?.contains("not usable") == true && line?.contains("libsecret") == true, "backends: \(backends.outputText)")

            let keyring = try KeychainCLIProcess.run(cli, ["--backend", "keyring", "list", "no-libsecret-\(UUID().uuidString)"],
                                                     environment: environment)
            #expect(keyring.status == 0, "the keyring backend failed without libsecret: \(keyring.errorText)")
        }

        /// Nothing in the binary names libsecret or GLib, so the dynamic loader never asks for them.
        @Test func cliDoesNotLinkLibsecretOrGLib() throws {
            guard toolExists("readelf") else { try Test.cancel("readelf (binutils) is not installed") }
            let dynamic = try runTool("readelf", ["-d", try SecretServiceTestSupport.cli()])
            #expect(dynamic.status == 0, "readelf failed: \(dynamic.errorText)")
            let needed = dynamic.outputText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            #expect(!needed.isEmpty, "readelf listed no needed libraries: \(dynamic.outputText)")
            for library in ["libsecret", "libglib", "libgio", "libgobject"] {
                #expect(!needed.contains { $0.contains(library) }, "the CLI needs \(library): \(needed)")
            }
        }
    }
}
