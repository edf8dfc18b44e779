import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import LinuxKeychain
import Testing

/// A P-256 key made and stored by one process (`SecKeyCreateRandomKey` with
/// `kSecAttrIsPermanent`) is found by its tag and signs in another, on every real backend; the
/// signature checks out against the public key the first process printed. Another program
/// (another identity) does not find the key.
@Suite("keys across processes")
struct KeysAcrossProcessesTests {
    @Test(arguments: ["secret-service", "keyring", "file", "vault"])
    func aKeyStoredByOneProcessSignsInAnother(_ backendName: String) throws {
        try requireAvailable(KeychainBackendRegistry.withBuiltIns.backend(named: backendName))
        let environment = ["KEYCHAIN_BACKEND": backendName]
        let tag = PlacementTestSupport.uniqueName("key")
        let probeA = try builtExecutable("KeychainProbeA")
        let probeB = try builtExecutable("KeychainProbeB")
        defer { _ = try? KeychainCLIProcess.run(probeA, ["delete-key", tag], environment: environment) }

        let made = try KeychainCLIProcess.run(probeA, ["make-key", tag], environment: environment)
        try #require(made.status == 0, "make-key: \(made.errorText)")
        let again = try KeychainCLIProcess.run(probeA, ["make-key", tag], environment: environment)
        // The new pair has another label, so it is no duplicate: Apple's rule too.
        try #require(again.status == 0, "a second make-key: \(again.errorText)")
        try #require(KeychainCLIProcess.run(probeA, ["delete-key", tag], environment: environment).status == 0)
        let stored = try KeychainCLIProcess.run(probeA, ["make-key", tag], environment: environment)
        try #require(stored.status == 0, "make-key: \(stored.errorText)")

        let message = Data("header.payload".utf8)
        let signed = try KeychainCLIProcess.run(probeA, ["sign", tag], input: message, environment: environment)
        try #require(signed.status == 0, "sign: \(signed.errorText)")
        var error: Unmanaged<CFError>?
        let publicKey = try #require(SecKeyCreateWithData(stored.output as CFData, [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                                                                                    kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary, &error))
        #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signed.output as CFData, &error),
                "the other process's signature does not verify with the stored key's public key")

        let other = try KeychainCLIProcess.run(probeB, ["sign", tag], input: message, environment: environment)
        #expect(other.status == CLIExit.notFound, "another program found the key: exit \(other.status), \(other.errorText)")

        // The operator's listing shows the key by class, tag and kind, never its bytes.
        let cli = try builtExecutable("linux-keychain")
        let listed = try KeychainCLIProcess.run(cli, ["list"], environment: environment)
        let row = listed.outputText.split(separator: "\n").first { $0.contains(tag) }.map(String.init) ?? ""
        #expect(row.hasPrefix("key ") && row.contains("EC-256 private") && row.contains("KeychainProbeA"),
                "linux-keychain list: \(listed.outputText) \(listed.errorText)")
        let json = try KeychainCLIProcess.run(cli, ["list", "--json"], environment: environment)
        let rows = try #require(try JSONSerialization.jsonObject(with: json.output) as? [[String: Any]], "list --json: \(json.outputText)")
        #expect(rows.contains { $0["class"] as? String == "key" && $0["group"] as? String == "KeychainProbeA" },
                "list --json: \(json.outputText)")
        #expect(json.output.range(of: stored.output) == nil && listed.output.range(of: stored.output) == nil)
    }
}
