import Foundation
import KeychainConformance
import KeychainTestSupport
import Testing

/// The default configuration on a headless machine (no `KEYCHAIN_BACKEND`, no pin, no session
/// bus), as an unprivileged user, across a simulated reboot (`RebootableUser`): durable where a
/// key source needs no prompt, volatile only where none exists and then said so, and a choice
/// recorded before this release kept (docs/placement.md).
@Suite("the durable default on a headless machine", .serialized)
struct DurableDefaultTests {
    static let userName = "lkc-durable-default"
    /// Bytes a text round trip would damage: a NUL, a line ending, invalid UTF-8.
    static let secret = Data([0x00, 0xFF, 0x0A]) + Data("durable-\(UUID().uuidString)".utf8)

    static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init)
    }

    /// The record `auto`'s first write made, as the next run reads it.
    static func record(of user: RebootableUser) -> String? {
        (try? String(contentsOfFile: user.home + "/.local/state/linux-keychain/backend", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sets the secret through the default and a control item in the keyring, reboots, and
    /// expects the first back with the same bytes and the second gone (proof of the reboot).
    func expectDurableAcrossReboot(_ user: RebootableUser, _ environment: [String: String]) throws {
        let backends = try user.keychain(["backends"], environment: environment)
        #expect(Self.lines(backends.outputText).contains("auto picks: file"), "linux-keychain backends: \(backends.outputText)")

        let set = try user.keychain(["set", "myapp", "database-key"], environment: environment, input: Self.secret)
        try #require(set.status == 0, "set through the default failed: \(set.errorText)")
        #expect(set.errorText.isEmpty, "a durable set said something on stderr: \(set.errorText)")
        #expect(Self.record(of: user) == "file")
        let control = try user.keychain(["--backend", "keyring", "set", "myapp", "control"], environment: environment,
                                        input: Data("volatile".utf8))
        try #require(control.status == 0, "the keyring control item: \(control.errorText)")

        try user.simulateReboot()

        let get = try user.keychain(["get", "myapp", "database-key"], environment: environment)
        #expect(get.status == 0 && get.output == Self.secret, "after the reboot: status \(get.status), \(get.errorText)")
        let lost = try user.keychain(["--backend", "keyring", "get", "myapp", "control"], environment: environment)
        #expect(lost.status == CLIExit.notFound, "the keyring item outlived the simulated reboot: \(lost.status) \(lost.errorText)")
    }

    @Test func aPassphraseFileMakesTheDefaultKeepASecretAcrossAReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let passphrase = user.home + "/passphrase"
        try user.writeOwnedFile(passphrase, Data("correct horse battery staple\n".utf8))
        try expectDurableAcrossReboot(user, ["KEYCHAIN_FILE_PASSPHRASE_FILE": passphrase])
    }

    @Test func aPassphraseVariableMakesTheDefaultKeepASecretAcrossAReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        try expectDurableAcrossReboot(user, ["KEYCHAIN_FILE_PASSPHRASE": "correct horse battery staple"])
    }

    /// A credential laid out as systemd's `LoadCredential=` does, found with nothing else set.
    @Test func aSystemdCredentialMakesTheDefaultKeepASecretAcrossAReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let credentials = user.home + "/credentials"
        try user.makeOwnedDirectory(credentials)
        try user.writeOwnedFile(credentials + "/keychain-passphrase", Data("sealed to this machine".utf8), mode: 0o400)
        try user.own(credentials, mode: 0o500)
        let environment = ["CREDENTIALS_DIRECTORY": credentials]
        let backends = try user.keychain(["backends"], environment: environment)
        #expect(backends.outputText.contains("passphrase from the systemd credential \(credentials)/keychain-passphrase"),
                "linux-keychain backends: \(backends.outputText)")
        try expectDurableAcrossReboot(user, environment)
    }

    /// Apple-style code (`KeychainProbeA`: SecItemAdd, then SecItemCopyMatching) on the default
    /// with a passphrase file: the same bytes after a reboot, and nothing on stderr.
    @Test func appleStyleCodeOnTheDefaultReadsItsKeyAfterAReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let probe = try user.copyOfExecutable(try builtExecutable("KeychainProbeA"))
        let passphrase = user.home + "/passphrase"
        try user.writeOwnedFile(passphrase, Data("correct horse battery staple".utf8))
        let environment = ["KEYCHAIN_FILE_PASSPHRASE_FILE": passphrase]
        let added = try user.run([probe, "add", "myapp", "device-key"], environment: environment, input: Self.secret)
        try #require(added.status == 0, "SecItemAdd: \(added.errorText)")
        #expect(added.errorText.isEmpty, "the library printed: \(added.errorText)")
        #expect(Self.record(of: user) == "file")
        let before = try user.run([probe, "get", "myapp", "device-key"], environment: environment)
        #expect(before.status == 0 && before.output == Self.secret, "before the reboot: \(before.errorText)")

        try user.simulateReboot()

        let after = try user.run([probe, "get", "myapp", "device-key"], environment: environment)
        #expect(after.status == 0 && after.output == Self.secret, "after the reboot: \(after.status) \(after.errorText)")
    }

    /// The library prints nothing where `auto` records the volatile keyring: only the CLI says it.
    @Test func theLibraryPrintsNothingWhenItRecordsTheKeyring() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let probe = try user.copyOfExecutable(try builtExecutable("KeychainProbeA"))
        let added = try user.run([probe, "add", "myapp", "device-key"], input: Data("volatile".utf8))
        #expect(added.status == 0, "SecItemAdd: \(added.errorText)")
        #expect(added.errorText.isEmpty, "the library printed: \(added.errorText)")
        #expect(Self.record(of: user) == "keyring")
    }

    /// No key source: `auto` lands on the kernel keyring, and says what that means on its line,
    /// on `auto picks`, and once on stderr at the `set` that records it.
    @Test func withoutAKeySourceTheKeyringIsChosenAndSaidToBeLostAtReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let backends = try user.keychain(["backends"])
        let lines = Self.lines(backends.outputText)
        let keyringLine = lines.first { $0.hasPrefix("keyring ") } ?? ""
        #expect(keyringLine.contains("usable") && keyringLine.hasSuffix("; kept in memory: lost at reboot"),
                "linux-keychain backends: \(backends.outputText)")
        #expect(lines.contains { $0.hasPrefix("auto picks: keyring (kept in memory: lost at reboot; ") },
                "linux-keychain backends: \(backends.outputText)")
        #expect(!(lines.first { $0.hasPrefix("file ") } ?? "").contains("lost at reboot"))

        let first = try user.keychain(["set", "myapp", "token"], input: Data("one".utf8))
        try #require(first.status == 0, "set: \(first.errorText)")
        let notice = Self.lines(first.errorText)
        #expect(notice.count == 1 && notice[0].contains("kept in memory: lost at reboot")
                && notice[0].contains("KEYCHAIN_FILE_PASSPHRASE_FILE") && notice[0].contains("linux-keychain pin file"),
                "the recording set's stderr: \(first.errorText)")
        #expect(Self.record(of: user) == "keyring")
        let second = try user.keychain(["set", "myapp", "other"], input: Data("two".utf8))
        #expect(second.status == 0 && second.errorText.isEmpty, "a later set repeated the notice: \(second.errorText)")

        try user.simulateReboot()
        let gone = try user.keychain(["get", "myapp", "token"])
        #expect(gone.status == CLIExit.notFound, "the volatile item after a reboot: \(gone.status) \(gone.errorText)")
    }

    /// A user whose first write recorded `keyring` keeps it once a key source is configured:
    /// only `auto`'s order for a new choice changed.
    @Test func aRecordedKeyringChoiceIsKeptWhenAKeySourceAppears() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let recorded = try user.keychain(["set", "myapp", "token"], input: Data("in the keyring".utf8))
        try #require(recorded.status == 0, "set: \(recorded.errorText)")
        #expect(Self.record(of: user) == "keyring")

        let environment = ["KEYCHAIN_FILE_PASSPHRASE": "configured later"]
        let backends = try user.keychain(["backends"], environment: environment)
        let lines = Self.lines(backends.outputText)
        #expect(lines.contains("auto picks: file"), "linux-keychain backends: \(backends.outputText)")
        #expect(lines.contains { $0.hasPrefix("in effect: keyring (recorded") }, "linux-keychain backends: \(backends.outputText)")
        let get = try user.keychain(["get", "myapp", "token"], environment: environment)
        #expect(get.status == 0 && get.outputText == "in the keyring", "get: \(get.status) \(get.errorText)")
        let write = try user.keychain(["set", "myapp", "second"], environment: environment, input: Data("x".utf8))
        #expect(write.status == 0 && write.errorText.isEmpty, "set: \(write.errorText)")
        let inKeyring = try user.keychain(["--backend", "keyring", "get", "myapp", "second"], environment: environment)
        #expect(inKeyring.status == 0, "the later write did not go to the recorded keyring: \(inKeyring.errorText)")
        #expect(Self.record(of: user) == "keyring")
    }
}
