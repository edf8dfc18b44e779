import CSecretServiceABICheck
import KeychainConformance
import KeychainTestSupport
import Testing

/// CShims/CSecretService declares GLib's, libsecret's and libgcrypt's ABI by hand, so that
/// building needs none of their headers. Tests/CSecretServiceABICheck checks those declarations, and the type of
/// every function the shim looks up, against the real headers with static assertions: a wrong
/// one fails the build of these tests. This test shows
/// that the check was part of the build, which needs libsecret-1-dev and libgcrypt20-dev.
@Suite("secret-service: the hand-declared GLib ABI is checked at build time")
struct SecretServiceABICheckTests {
    @Test func theCheckWasCompiledIn() throws {
        let checked = csecretservice_abi_checked_declarations()
        if checked == 0 {
            try skipOrFail("the GLib ABI was not checked: the headers of libsecret-1-dev or libgcrypt20-dev were missing at build time")
        }
        #expect(checked == 57)
        // The shim's 66 GLib and libsecret functions and 26 libgcrypt ones, and the benchmark
        // baseline's 3 libsecret ones.
        #expect(csecretservice_abi_checked_prototypes() == 95)
    }
}
