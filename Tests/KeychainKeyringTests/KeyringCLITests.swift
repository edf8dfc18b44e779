import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The keyring backend across processes, through the built `linux-keychain` CLI and `keyctl`.
/// The persistent keyring is per user, so the CLI children of this test share it.
@Suite("kernel keyring backend across processes")
struct KeyringCLITests {
    let cli: String
    /// The default keyring, whatever the environment of the test run says.
    let environment = ["KEYCHAIN_KEYRING": "", "KEYCHAIN_BACKEND": "keyring"]

    init() throws {
        cli = try builtCLI()
    }

    func keychain(_ arguments: [String], input: Data? = nil,
                  environment extra: [String: String] = [:]) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(cli, arguments, input: input,
                                   environment: environment.merging(extra) { _, new in new })
    }

    @Test func setInOneProcessGetInAnotherDeleteThenNotFound() throws {
        let service = uniqueService("cli")
        let secret = Data([0, 10, 255, 13]) + Data("pass word\n".utf8)
        let set = try keychain(["set", service, "alice"], input: secret)
        try #require(set.status == 0, "set failed: \(set.errorText)")

        let get = try keychain(["get", service, "alice"])
        #expect(get.status == 0, "get failed: \(get.errorText)")
        #expect(get.output == secret)
        // This process sees it too: the persistent keyring is the user's, not the process's.
        let here = try KernelKeyringBackend(keyring: nil).search(exactQuery(service, "alice", secrets: true))
        #expect(here.first?.secret?.makeData() == secret)

        let delete = try keychain(["delete", service, "alice"])
        #expect(delete.status == 0, "delete failed: \(delete.errorText)")
        let again = try keychain(["get", service, "alice"])
        #expect(again.status == CLIExit.notFound, "get after delete exited \(again.status): \(again.errorText)")
        #expect(again.output.isEmpty)
    }

    /// A delete that ends after unlinking the item key (killed, or refused the record lock by
    /// the quota) leaves the attributes key of an item with long attributes. That key alone is
    /// no item, to a new process either.
    @Test func anAttributesKeyADeleteLeftIsNoItemToTheNextProcess() throws {
        let service = uniqueService("cli-leftover")
        let set = try keychain(["set", service, "alice", "--comment", String(repeating: "c", count: 3000)],
                               input: Data("long".utf8))
        try #require(set.status == 0, "set failed: \(set.errorText)")
        let kernel = KernelKeys()
        let target = try kernel.resolve(nil).serial
        let description = try ItemKeyDescription(genericItem(service, "alice", Data()).primaryKey)
        try kernel.unlink(try kernel.search(target, type: "user", description: description.text), from: target)
        let attributesKey = try kernel.search(target, type: "user", description: AttributesKey.description(of: description))
        defer { try? kernel.unlink(attributesKey, from: target) }

        let get = try keychain(["get", service, "alice"])
        #expect(get.status == CLIExit.notFound, "a deleted item read back: \(get.status) \(get.output) \(get.errorText)")
        #expect(!(try keychain(["list", service])).outputText.contains("alice"), "a deleted item is listed")
        let again = try keychain(["set", service, "alice"], input: Data("again".utf8))
        #expect(again.status == 0, "add over the leftover failed: \(again.errorText)")
        #expect(try keychain(["get", service, "alice"]).output == Data("again".utf8))
        _ = try keychain(["delete", service, "alice"])
    }

    @Test func keyctlFindsTheItemAndPrintsExactlyTheSecret() throws {
        let service = uniqueService("interop:keyctl")
        let secret = Data("s3cret with spaces\u{0}and a NUL\n".utf8)
        let set = try keychain(["set", service, "bob@example.org"], input: secret)
        try #require(set.status == 0, "set failed: \(set.errorText)")
        defer { _ = try? keychain(["delete", service, "bob@example.org"]) }

        // What docs/keyring.md tells users: link the persistent keyring into a session keyring,
        // search it for the description, print the key. A private session keeps this test's
        // own session keyring untouched.
        let description = "linux-keychain:genp:\(service.replacingOccurrences(of: ":", with: "%3A")):bob@example.org"
        let script = #"keyctl get_persistent @s >/dev/null && key=$(keyctl search @s user "$1") && keyctl pipe "$key""#
        let keyctl = try KeychainCLIProcess.run("/usr/bin/keyctl", ["session", "-", "/bin/sh", "-c", script, "sh", description])
        let printed = keyctl.output
        #expect(keyctl.status == 0, "keyctl failed: \(keyctl.errorText)")
        #expect(printed == secret, "keyctl pipe printed \(printed.count) bytes instead of the \(secret.count) stored")
    }

    @Test func ofEightProcessesAddingOneItemExactlyOneWins() throws {
        let service = uniqueService("race")
        defer { _ = try? keychain(["delete", service, "raced"]) }
        let racers = (0..<8).map { index in
            KeychainCLIProcess(cli, ["add", service, "raced"], input: Data("racer-\(index)".utf8),
                               environment: environment)
        }
        let results = try racers.map { try $0.wait() }
        let winners = results.indices.filter { results[$0].status == 0 }
        let duplicates = results.filter { $0.status == CLIExit.duplicate }
        #expect(winners.count == 1 && duplicates.count == 7,
                "statuses \(results.map(\.status)); errors: \(results.map(\.errorText).filter { !$0.isEmpty })")
        let stored = try keychain(["get", service, "raced"])
        #expect(winners.map { Data("racer-\($0)".utf8) } == [stored.output], "the stored secret is not the winner's")
    }

    #if DEBUG
    @Test(arguments: ["EPERM", "ENOSYS"])
    func aBlockedKeyringIsReportedAndAutoMovesOn(_ refusal: String) throws {
        let blocked = ["KEYCHAIN_KEYRING_SIMULATE_REFUSAL": refusal, "KEYCHAIN_BACKEND": "auto"]
        let backends = try keychain(["backends"], environment: blocked)
        #expect(backends.status == 0, "\(backends.errorText)")
        let lines = backends.outputText.split(separator: "\n")
        let keyringLine = lines.first { $0.hasPrefix("keyring ") } ?? ""
        #expect(keyringLine.contains("not usable") && keyringLine.contains("kernel keyring is blocked here"),
                "backends says: \(keyringLine)")
        let autoLine = lines.first { $0.hasPrefix("auto picks: ") } ?? ""
        #expect(!autoLine.hasPrefix("auto picks: keyring"), "auto still picks the blocked keyring: \(autoLine)")

        let get = try keychain(["--backend", "keyring", "get", "svc", "acct"], environment: blocked)
        #expect(get.status == CLIExit.unavailable)
        #expect(get.errorText.contains("kernel keyring is blocked here"), "stderr: \(get.errorText)")
    }
    #endif
}
