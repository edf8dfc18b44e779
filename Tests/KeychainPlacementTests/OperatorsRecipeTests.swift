import Foundation
import KeychainConformance
import Testing

/// docs/operators.md's systemd unit, as written, without systemd: the state directory and
/// `$CREDENTIALS_DIRECTORY` are laid out as systemd lays them out for `User=myapp`, each start
/// of the service is a process with the unit's environment (`RebootableUser.run`), and a
/// reboot is simulated between two starts. The credentials directory lives under `/run` on a
/// real machine, so the reboot removes it and the next start lays it out again.
@Suite("docs/operators.md's systemd recipe", .serialized)
struct OperatorsRecipeTests {
    static let userName = "lkc-durable-recipe"
    static let passphrase = Data("a passphrase only the service reads\n".utf8)
    static let secret = Data([0x01, 0x00, 0xFE]) + Data("db-\(UUID().uuidString)".utf8)

    /// `StateDirectory=myapp` (mode 0700) and the credentials directory (`%d`) of one start.
    struct Unit {
        let user: RebootableUser
        /// `%S`: systemd's state root.
        var stateRoot: String { user.home + "/var-lib" }
        /// `%d`.
        var credentials: String { user.home + "/run-credentials/myapp.service" }

        init(_ user: RebootableUser) throws {
            self.user = user
            try user.makeOwnedDirectory(user.home + "/var-lib", mode: 0o755)
            try user.makeOwnedDirectory(stateRoot + "/myapp")
        }

        /// What systemd does before `ExecStart=`: the credential as a read-only file in a
        /// read-only directory of the service's user.
        func layOutCredentials(_ passphrase: Data) throws {
            try? FileManager.default.removeItem(atPath: credentials)
            try user.makeOwnedDirectory(user.home + "/run-credentials", mode: 0o755)
            try user.makeOwnedDirectory(credentials)
            try user.writeOwnedFile(credentials + "/keychain-passphrase", passphrase, mode: 0o400)
            try user.own(credentials, mode: 0o500)
        }

        /// The reboot: the keys go (`simulateReboot`), and so does everything under `/run`.
        func reboot() throws {
            try user.simulateReboot()
            try FileManager.default.removeItem(atPath: credentials)
        }

        /// The unit's `Environment=` lines with `%S` and `%d` expanded, and the variable
        /// systemd itself sets.
        var writtenEnvironment: [String: String] {
            ["KEYCHAIN_BACKEND": "file", "KEYCHAIN_FILE_DIR": stateRoot + "/myapp/keychain",
             "KEYCHAIN_FILE_PASSPHRASE_FILE": credentials + "/keychain-passphrase", "CREDENTIALS_DIRECTORY": credentials]
        }
    }

    /// Provisions through the unit's environment, reboots, lays the credential out again, reads.
    func expectSecretAcrossReboot(_ unit: Unit, environment: [String: String], credential: () throws -> Data,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        try unit.layOutCredentials(try credential())
        let set = try unit.user.keychain(["set", "myapp", "database"], environment: environment, input: Self.secret)
        try #require(set.status == 0, "provisioning as the service: \(set.errorText)", sourceLocation: sourceLocation)
        #expect(set.errorText.isEmpty, "provisioning said: \(set.errorText)", sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: unit.stateRoot + "/myapp/keychain/store-header"),
                "the store is not in the state directory", sourceLocation: sourceLocation)

        try unit.reboot()
        try unit.layOutCredentials(try credential())

        let get = try unit.user.keychain(["get", "myapp", "database"], environment: environment)
        #expect(get.status == 0 && get.output == Self.secret, "after the reboot: \(get.status) \(get.errorText)",
                sourceLocation: sourceLocation)
    }

    /// `LoadCredential=` with `KEYCHAIN_FILE_PASSPHRASE_FILE=%d/keychain-passphrase`, as the unit reads.
    @Test func theUnitAsWrittenReadsTheSameSecretAfterAReboot() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let unit = try Unit(user)
        try expectSecretAcrossReboot(unit, environment: unit.writtenEnvironment) { Self.passphrase }
    }

    /// The credential alone: no `KEYCHAIN_BACKEND`, no passphrase variable; `auto` finds it.
    @Test func theCredentialAloneIsFoundByAuto() throws {
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let unit = try Unit(user)
        var environment = unit.writtenEnvironment
        environment["KEYCHAIN_BACKEND"] = nil
        environment["KEYCHAIN_FILE_PASSPHRASE_FILE"] = nil
        try unit.layOutCredentials(Self.passphrase)
        let backends = try user.keychain(["backends"], environment: environment)
        #expect(backends.outputText.contains("auto picks: file\n"), "linux-keychain backends: \(backends.outputText)")
        try expectSecretAcrossReboot(unit, environment: environment) { Self.passphrase }
    }

    /// `LoadCredentialEncrypted=` with the host key: `systemd-creds setup` and `encrypt` once, and
    /// at each start the `decrypt` systemd performs into `%d`. The host key is a scratch file
    /// (`SYSTEMD_CREDENTIAL_SECRET`), never the machine's own.
    @Test func anEncryptedCredentialSealedWithTheHostKeyReadsTheSameSecretAfterAReboot() throws {
        let tool = "/usr/bin/systemd-creds"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            try Test.cancel("systemd-creds is not installed (apt-get install systemd)")
        }
        let user = try RebootableUser(Self.userName)
        defer { user.remove() }
        let unit = try Unit(user)
        let sealed = user.home + "/credstore.encrypted"
        try FileManager.default.createDirectory(atPath: sealed, withIntermediateDirectories: true)
        let hostKey = ["SYSTEMD_CREDENTIAL_SECRET": sealed + "/credential.secret"]
        let setup = try KeychainCLIProcess.run(tool, ["setup"], environment: hostKey)
        try #require(setup.status == 0, "systemd-creds setup: \(setup.errorText)")
        let encrypted = sealed + "/keychain-passphrase"
        let encrypt = try KeychainCLIProcess.run(tool, ["encrypt", "--name=keychain-passphrase", "--with-key=host", "-", encrypted],
                                                 input: Self.passphrase, environment: hostKey)
        try #require(encrypt.status == 0, "systemd-creds encrypt: \(encrypt.errorText)")
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: encrypted))
        #expect(onDisk.range(of: Self.passphrase.dropLast()) == nil, "the sealed credential holds the passphrase in the clear")

        try expectSecretAcrossReboot(unit, environment: unit.writtenEnvironment) {
            let decrypted = try KeychainCLIProcess.run(tool, ["decrypt", "--name=keychain-passphrase", encrypted, "-"],
                                                       environment: hostKey)
            try #require(decrypted.status == 0, "systemd-creds decrypt: \(decrypted.errorText)")
            return decrypted.output
        }
    }
}
