import Foundation
import KeychainConformance
import KeychainCore
import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// `linux-keychain list` and `search` are the operator's view: items other tools wrote appear
    /// with and without a service argument, and a locked keyring has its own exit status.
    @Suite("CLI listing")
    struct CLIListing {
        init() throws {
            try SecretServiceTestSupport.requireAvailable()
        }

        func keychain(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ToolResult {
            try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service"] + arguments, environment: environment)
        }

        func rows(_ result: ToolResult) throws -> [[String: Any]] {
            try #require(result.status == 0, "\(result.errorText)")
            return try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: Any]])
        }

        @Test func itemsOfOtherToolsAppearWithAndWithoutAService() throws {
            guard toolExists("secret-tool") else { try Test.cancel("secret-tool (libsecret-tools) is not installed") }
            let service = SecretServiceTestSupport.uniqueName("listed")
            let backend = SecretServiceTestSupport.backend
            defer { _ = try? backend.delete(exactQuery(service, "dave", secrets: false)) }
            let store = try runTool("secret-tool", ["store", "--label=From secret-tool", "service", service, "username", "dave"],
                                    input: Data("x".utf8))
            try #require(store.status == 0, "secret-tool store: \(store.errorText)")

            let named = try rows(try keychain(["list", "--json", service]))
            let everything = try rows(try keychain(["list", "--json"])).filter { $0["service"] as? String == service }
            let searched = try rows(try keychain(["search", "--json", "label", "From secret-tool", "account", "dave"]))
                .filter { $0["service"] as? String == service }
            // On KeePassXC too, which answers a search without attributes with nothing: a
            // listing without a service reads the collection's items instead.
            for listing in [named, everything, searched] {
                #expect(listing.count == 1, "listed \(listing)")
                #expect(listing.first?["account"] as? String == "dave")
                #expect(listing.first?["label"] as? String == "From secret-tool")
            }
        }

        @Test func itemsOfThisLibraryAppearWithoutAServiceOnEveryProvider() throws {
            let service = SecretServiceTestSupport.uniqueName("listed-own")
            let backend = SecretServiceTestSupport.backend
            defer { _ = try? backend.delete(exactQuery(service, "erin", secrets: false)) }
            let set = try runTool(try SecretServiceTestSupport.cli(), ["--backend", "secret-service", "set", service, "erin"],
                                  input: Data("x".utf8))
            try #require(set.status == 0, "linux-keychain set: \(set.errorText)")
            let everything = try rows(try keychain(["list", "--json"])).filter { $0["service"] as? String == service }
            #expect(everything.count == 1, "list without a service: \(everything)")
        }

        @Test func aLockedKeyringExitsFiveNeverNotFound() throws {
            try SecretServiceTestSupport.requireGnomeKeyring("a second collection made and locked without a prompt")
            let path = try LockedCollection.keyring(["create", SecretServiceTestSupport.uniqueName("cli-locked")])
            _ = try LockedCollection.keyring(["lock", path])
            let environment = ProcessInfo.processInfo.environment.merging([SecretServiceSettings.collectionVariable: path]) { _, new in new }
            for arguments in [["get", "svc", "acct"], ["list"]] {
                let result = try keychain(arguments, environment: environment)
                #expect(result.status == CLIExit.locked, "linux-keychain \(arguments.joined(separator: " ")) exited \(result.status): \(result.errorText)")
                #expect(result.errorText.split(separator: "\n").count == 1)
            }
        }
    }
}
