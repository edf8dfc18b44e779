import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
@testable import KeychainVault
import Testing

/// Secrets at operators' own paths: service `kv:<path>`, account = field.
@Suite("vault operator-managed secrets")
struct VaultOperatorSecretsTests {
    let path = "\(VaultTestServer.uniquePrefix("operator"))/myapp/db"

    private func keychain(_ arguments: [String], input: Data? = nil) throws -> KeychainCLIProcess.Result {
        try KeychainCLIProcess.run(try builtCLI(), ["--backend", "vault"] + arguments, input: input,
                                   environment: try VaultTestServer.cliEnvironment(prefix: "lkc-test/unused"))
    }

    private func field(_ name: String) throws -> String? {
        let result = try VaultTestServer.bao(["kv", "get", "-field=\(name)", "secret/\(path)"])
        return result.status == 0 ? result.outputText : nil
    }

    @Test func cliReadsAndWritesFieldsThatBaoWrote() throws {
        let put = try VaultTestServer.bao(["kv", "put", "secret/\(path)", "password=hunter2", "user=app", "port=5432"])
        try #require(put.status == 0, "\(put.errorText)")
        defer { _ = try? VaultTestServer.bao(["kv", "metadata", "delete", "secret/\(path)"]) }

        for service in ["kv:\(path)", "kv:secret/\(path)"] {
            let get = try keychain(["get", service, "password"])
            #expect(get.status == 0 && get.outputText == "hunter2", "\(service): \(get.errorText)")
        }
        let list = try keychain(["list", "kv:\(path)"])
        #expect(list.status == 0 && ["password", "port", "user"].allSatisfy(list.outputText.contains), "\(list.outputText) \(list.errorText)")

        let set = try keychain(["set", "kv:\(path)", "password"], input: Data("correct horse".utf8))
        #expect(set.status == 0, "\(set.errorText)")
        #expect(try field("password") == "correct horse")
        #expect(try field("user") == "app", "the operator's other fields were not kept")

        let delete = try keychain(["delete", "kv:\(path)", "port"])
        #expect(delete.status == 0, "\(delete.errorText)")
        #expect(try field("port") == nil && field("user") == "app")
        let missing = try keychain(["get", "kv:\(path)", "port"])
        #expect(missing.status != 0 && missing.errorText.contains("no item"), "\(missing.errorText)")
    }

    @Test func backendAddsSearchesAndRemovesTheLastField() throws {
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: "lkc-test/unused"))
        let service = "kv:\(path)"
        try backend.add(genericItem(service, "token", Data("abc".utf8)))
        #expect(try field("token") == "abc")
        let duplicate = keychainError { try backend.add(genericItem(service, "token", Data("again".utf8))) }
        #expect(duplicate?.status == errSecDuplicateItem)
        let binary = keychainError { try backend.add(genericItem(service, "blob", Data([0xFF, 0x00]))) }
        #expect(binary?.status == errSecParam, "\(String(describing: binary))")
        #expect(try storedSecret(backend, service, "token") == Data("abc".utf8))
        #expect(try backend.update(exactQuery(service, "token"), with: ItemChanges(secret: SecretBytes(Data("def".utf8)))) == 1)
        #expect(try field("token") == "def")
        #expect(try backend.delete(exactQuery(service, "token")) == 1)
        #expect(try storedSecret(backend, service, "token") == nil)
        // The last field's removal is a soft delete, which an operator can undo.
        let undelete = try VaultTestServer.bao(["kv", "undelete", "-versions=2", "secret/\(path)"])
        #expect(undelete.status == 0, "\(undelete.errorText)")
        #expect(try field("token") == "def")
        _ = try VaultTestServer.bao(["kv", "metadata", "delete", "secret/\(path)"])
    }

    /// The library's own items are reached by service and account only: a `kv:` path into its
    /// storage folder would reach another program's item by naming its access group.
    @Test func pathsIntoTheLibrarysOwnFolderAreRefused() throws {
        let prefix = VaultTestServer.uniquePrefix("own-folder")
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
        let theirs = genericItem("billing", "db", Data("their-secret".utf8),
                                            extra: [.accessGroup: .string("OtherProgram")])
        try backend.add(theirs)
        defer { _ = try? VaultTestServer.bao(["kv", "metadata", "delete", "secret/\(prefix)/generic/billing/db;access_group=OtherProgram"]) }
        let stored = try VaultTestServer.bao(["kv", "list", "secret/\(prefix)/generic/billing"])
        try #require(stored.outputText.contains("db;access_group=OtherProgram"), "the item's path changed: \(stored.outputText)")

        for service in ["kv:\(prefix)/generic/billing/db;access_group=OtherProgram",
                        "kv:secret/\(prefix)/generic/billing/db;access_group=OtherProgram", "kv:\(prefix)",
                        "kv:\(VaultConfiguration.defaultPrefix)/generic/billing/db"] {
            let read = keychainError { _ = try backend.search(exactQuery(service, "secret")) }
            #expect(read?.status == errSecParam, "\(service): \(String(describing: read))")
            #expect(read?.message.contains("storage folder") == true, "\(service): \(String(describing: read))")
            let write = keychainError { try backend.add(genericItem(service, "secret", Data("x".utf8))) }
            #expect(write?.status == errSecParam, "\(service): \(String(describing: write))")
        }
        // A folder that merely starts with the same letters is the operator's.
        let neighbour = "kv:\(prefix)-operator/db"
        try backend.add(genericItem(neighbour, "password", Data("ok".utf8)))
        defer { _ = try? VaultTestServer.bao(["kv", "metadata", "delete", "secret/\(prefix)-operator/db"]) }
        #expect(try storedSecret(backend, neighbour, "password") == Data("ok".utf8))
    }

    @Test func malformedPathsAreRefused() throws {
        let backend = VaultBackend(configuration: try VaultTestServer.configuration(prefix: "lkc-test/unused"))
        for service in ["kv:", "kv:a//b", "kv:../escape", "kv:a/./b"] {
            let error = keychainError { try backend.add(genericItem(service, "f", Data("x".utf8))) }
            #expect(error?.status == errSecParam, "\(service): \(String(describing: error))")
        }
    }
}
