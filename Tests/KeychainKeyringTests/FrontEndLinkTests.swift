import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// A program that links LinuxKeychainFrontEnd alone brings no libkeyutils with it: the front
/// end's SecRandom shares the system-call layer with the backends, and only the backends that
/// use the kernel keyring (through KeychainKernelKeyCalls) link the library (issue 27).
@Suite struct FrontEndLinkTests {
    /// What shows that libkeyutils is linked: its functions among the symbols (undefined ones
    /// included), and the library among those the dynamic loader maps.
    static let keyutilsFunctions = ["add_key", "keyctl_", "request_key"]

    @Test func theFrontEndAloneLinksNoKeyutils() throws {
        let probe = try builtExecutable("KeychainFrontEndProbe")
        let run = try KeychainCLIProcess.run(probe, [], timeout: 60)
        #expect(run.status == 0, "probe: \(run.errorText)")
        #expect(run.outputText.trimmingCharacters(in: .newlines).count == 64, "32 random bytes in hex: \(run.outputText)")

        let symbols = try OneBackendLinkTests.symbols(of: probe)
        #expect(symbols.contains("19KeychainSystemCalls"), "the scan finds the system-call layer SecRandom uses")
        #expect(!symbols.contains("22KeychainKernelKeyCalls"), "the keyutils calls are linked into the front end")
        #expect(Self.keyutilsSymbols(in: symbols).isEmpty, "keyutils symbols in the front end: \(Self.keyutilsSymbols(in: symbols))")
        let libraries = try Self.sharedLibraries(of: probe)
        #expect(!libraries.contains("libkeyutils"), "ldd \(probe):\n\(libraries)")
    }

    /// libcrypto, which only the SecKey functions use, is not linked: it is mapped at the first
    /// key function a program calls (issue 34).
    @Test func theFrontEndMapsLibcryptoOnlyAtItsFirstKey() throws {
        let probe = try builtExecutable("KeychainFrontEndProbe")
        #expect(!(try Self.sharedLibraries(of: probe)).contains("libcrypto"))
        let run = try KeychainCLIProcess.run(probe, ["keys"], timeout: 60)
        #expect(run.status == 0, "probe: \(run.errorText)")
        #expect(run.outputText == "not mapped\nmapped\n")
    }

    /// The same scan finds libkeyutils in the one-backend probe, which links the keyring backend.
    @Test func theScanFindsKeyutilsWhereTheKeyringIsLinked() throws {
        let probe = try builtExecutable("KeychainOneBackendProbe")
        #expect(!Self.keyutilsSymbols(in: try OneBackendLinkTests.symbols(of: probe)).isEmpty)
        #expect(try Self.sharedLibraries(of: probe).contains("libkeyutils"))
    }

    /// The lines of `nm`'s listing that name a libkeyutils function.
    static func keyutilsSymbols(in listing: String) -> [String] {
        listing.split(separator: "\n").filter { line in
            guard let name = line.split(separator: " ").last else { return false }
            return keyutilsFunctions.contains { name.hasPrefix($0) }
        }.map(String.init)
    }

    /// `ldd`'s listing of the libraries `path` loads.
    static func sharedLibraries(of path: String) throws -> String {
        let result = try KeychainCLIProcess.run("/usr/bin/ldd", [path], timeout: 60)
        try #require(result.status == 0, "ldd \(path): \(result.errorText)")
        return result.outputText
    }
}
