import CLibcryptoABICheck
import KeychainTestSupport
import Testing

/// CShims/CLibcrypto declares the part of libcrypto's ABI it uses by hand (LibcryptoABI.h), so
/// that building needs no OpenSSL headers. Tests/CLibcryptoABICheck checks every prototype,
/// number and layout there against the real headers with static assertions: a wrong one fails
/// the build of these tests. This test shows that the check was part of the build, which
/// needs libssl-dev.
@Suite("SecKey: the hand-declared libcrypto ABI is checked at build time")
struct LibcryptoABICheckTests {
    @Test func theCheckWasCompiledIn() throws {
        let checked = clibcrypto_abi_checked_declarations()
        if checked.prototypes == 0 {
            try skipOrFail("the libcrypto ABI was not checked: <openssl/evp.h> (libssl-dev) was missing at build time")
        }
        // Every function CLibcrypto.c looks up, every number it passes, and OSSL_PARAM's layout.
        #expect(checked.prototypes == 56)
        #expect(checked.constants == 19)
        #expect(checked.layouts == 6)
    }
}
