import Foundation
import LinuxKeychainKit
import Testing

/// The typed `Keychain` API, on a private memory backend per test so tests stay independent.
@Suite("typed Keychain API")
struct TypedKeychainTests {
    let backend = MemoryBackend()

    private func keychain(_ service: String = "com.example.typed", group: String? = nil) -> Keychain {
        Keychain(service: service, accessGroup: group, backend: backend)
    }

    @Test func storesReadsAndReplacesData() throws {
        let keychain = keychain()
        let bytes = Data((0...255).map { UInt8($0) })
        try keychain.set(bytes, for: "alice")
        #expect(try keychain.data(for: "alice") == bytes)
        try keychain.set(Data([1]), for: "alice")
        #expect(try keychain.data(for: "alice") == Data([1]))
        #expect(try keychain.data(for: "bob") == nil)
    }

    @Test func storesStringsAndRejectsNonUTF8AsDecodeError() throws {
        let keychain = keychain()
        try keychain.set("pässwörd 🔑", for: "alice")
        #expect(try keychain.string(for: "alice") == "pässwörd 🔑")
        try keychain.set(Data([0xFF, 0xFE]), for: "binary")
        let error = #expect(throws: KeychainError.self) { try keychain.string(for: "binary") }
        #expect(error?.status == errSecDecode)
    }

    struct Credentials: Codable, Equatable, Sendable {
        let user: String
        let token: String
    }

    @Test func storesCodableValuesAsJSON() throws {
        let keychain = keychain()
        let value = Credentials(user: "alice", token: "t0k3n")
        try keychain.setEncodable(value, for: "creds")
        #expect(try keychain.decodable(Credentials.self, for: "creds") == value)
        try keychain.set("not json", for: "creds")
        let error = #expect(throws: KeychainError.self) { try keychain.decodable(Credentials.self, for: "creds") }
        #expect(error?.status == errSecDecode)
    }

    @Test func containsListsAndRemoves() throws {
        let keychain = keychain("com.example.listing")
        let other = self.keychain("com.example.other")
        try keychain.set("1", for: "b")
        try keychain.set("2", for: "a")
        try other.set("3", for: "c")
        #expect(try keychain.contains("a"))
        #expect(try !keychain.contains("c"))
        #expect(try keychain.allAccounts() == ["a", "b"])
        #expect(try keychain.remove("a"))
        #expect(try !keychain.remove("a"))
        #expect(try keychain.removeAll() == 1)
        #expect(try keychain.allAccounts().isEmpty)
        #expect(try other.allAccounts() == ["c"], "removeAll touched another service")
    }

    @Test func accessGroupsSeparateItems() throws {
        let shared = keychain("com.example.groups", group: "team.shared")
        let plain = keychain("com.example.groups")
        try shared.set("shared", for: "alice")
        try plain.set("plain", for: "alice")
        #expect(try shared.string(for: "alice") == "shared")
        #expect(try plain.string(for: "alice") == "plain")
    }

    @Test func errorsCarryTheStatusAndMatchInCatch() throws {
        let failing = Keychain(service: "s", backend: PlaceholderBackend(name: "broken", reason: "Broken on purpose."))
        do {
            try failing.set("x", for: "a")
            Issue.record("a placeholder backend accepted a write")
        } catch KeychainError.notAvailable {
            #expect(KeychainLastError.current?.backend == "broken")
        }
        let error = KeychainError(errSecItemNotFound, "gone")
        #expect(KeychainError.itemNotFound ~= error)
        #expect(!(KeychainError.duplicateItem ~= error))
    }

    @Test func asyncOverloadsWorkFromManyTasks() async throws {
        let keychain = keychain("com.example.async")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    try await keychain.set("value \(index)", for: "account\(index)")
                    let read = try await keychain.string(for: "account\(index)")
                    #expect(read == "value \(index)")
                }
            }
            try await group.waitForAll()
        }
        #expect(try await keychain.allAccounts().count == 32)
    }

    @Test func setIsSafeFromManyThreads() throws {
        let keychain = keychain("com.example.threads")
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            #expect(throws: Never.self) { try keychain.set("v\(index)", for: "shared") }
        }
        let final = try #require(try keychain.string(for: "shared"))
        #expect(final.hasPrefix("v"))
        #expect(try keychain.allAccounts() == ["shared"], "concurrent sets created duplicates")
    }

    @Test func secretsNeverShowInDescriptions() throws {
        let secret = SecretBytes(Data("hunter2".utf8))
        #expect(!"\(secret)".contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
        let item = KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string("s")]), secret: secret)
        #expect(!"\(item)".contains("hunter2"))
    }
}
