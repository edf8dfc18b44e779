import CCurlABICheck
import KeychainConformance
import KeychainTestSupport
import Testing

/// CShims/CCurl declares the part of libcurl's ABI it uses by hand (CurlABI.h), so that
/// building needs no libcurl headers. Tests/CCurlABICheck checks every prototype, callback
/// type, number and layout there against the real <curl/curl.h> with static assertions, walking
/// the shim's own lists: a wrong one fails the build of these tests. This test shows that the
/// check was part of the build, which needs libcurl4-openssl-dev.
@Suite("vault: the hand-declared libcurl ABI is checked at build time")
struct CurlABICheckTests {
    @Test func theCheckWasCompiledIn() throws {
        let checked = ccurl_abi_checked_declarations()
        if checked.prototypes == 0 {
            try skipOrFail("the libcurl ABI was not checked: <curl/curl.h> (libcurl4-openssl-dev) was missing at build time")
        }
        // Every function CCurl.c looks up, every callback it hands libcurl, every number it
        // passes or compares, and the sizes and offsets of CURLMsg, curl_blob and curl_sockaddr.
        #expect(checked.prototypes == 19)
        #expect(checked.callbacks == 4)
        #expect(checked.constants == 70)
        #expect(checked.layouts == 18)
    }
}
