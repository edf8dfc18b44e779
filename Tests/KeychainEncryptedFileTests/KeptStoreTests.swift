import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// A backend keeps its store open between calls (`StoreSession`). These change the store under
/// a live backend, from other processes (the CLI) or by hand, and check that its next call
/// sees exactly what a backend made afresh would see.
@Suite("file backend: a store kept open between calls")
struct KeptStoreTests {
    @Test func aStoreDeletedAndMadeAgainByAnotherProcessIsUsed() throws {
        let cli = try CLIStore()
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        try backend.add(genericItem("svc", "before", "1"))
        #expect(try storedSecret(backend, "svc", "before") == Data("1".utf8))

        try FileManager.default.removeItem(atPath: cli.directory)
        try cli.set("svc", "after", Data("2".utf8))

        #expect(try storedSecret(backend, "svc", "after") == Data("2".utf8))
        #expect(try storedSecret(backend, "svc", "before") == nil)
        // A write lands in the new store, where another process finds it.
        try backend.add(genericItem("svc", "written", "3"))
        let read = try cli.run(["get", "svc", "written"])
        #expect(read.status == 0 && read.output == Data("3".utf8), "\(read.errorText)")
    }

    @Test func aNewStoreUnderAnotherPassphraseIsNotOpenedWithTheOldKey() throws {
        let cli = try CLIStore()
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        try backend.add(genericItem("svc", "before", "1"))

        try FileManager.default.removeItem(atPath: cli.directory)
        let made = try cli.run(["set", "svc", "after"], input: Data("2".utf8), changing: ["KEYCHAIN_FILE_PASSPHRASE": "another one"])
        #expect(made.status == 0, "\(made.errorText)")

        // The kept key belongs to the deleted store; the new one needs its own passphrase.
        #expect(keychainError { _ = try storedSecret(backend, "svc", "after") }?.status == errSecAuthFailed)
        #expect(keychainError { try backend.add(genericItem("svc", "x", "3")) }?.status == errSecAuthFailed)
    }

    @Test func aStoreEmptiedAndMadeAgainInTheSameDirectoryIsUsed() throws {
        let cli = try CLIStore()
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        try backend.add(genericItem("svc", "before", "1"))

        for name in try FileManager.default.contentsOfDirectory(atPath: cli.directory) {
            try FileManager.default.removeItem(atPath: cli.directory + "/" + name)
        }
        try cli.set("svc", "after", Data("2".utf8))

        #expect(try storedSecret(backend, "svc", "after") == Data("2".utf8))
        #expect(try storedSecret(backend, "svc", "before") == nil)
        try backend.add(genericItem("svc", "written", "3"))
        #expect(try cli.run(["get", "svc", "written"]).output == Data("3".utf8))
    }

    @Test func aStoreMovedAsideIsNotWrittenTo() throws {
        let cli = try CLIStore()
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        try backend.add(genericItem("svc", "before", "1"))

        try FileManager.default.moveItem(atPath: cli.directory, toPath: cli.store.root + "/moved")
        try cli.set("svc", "after", Data("2".utf8))

        try backend.add(genericItem("svc", "written", "3"))
        #expect(try cli.run(["get", "svc", "written"]).output == Data("3".utf8))
        #expect(cli.store.itemFiles(in: cli.store.root + "/moved").count == 1, "the moved-away store was written to")
        #expect(try storedSecret(backend, "svc", "before") == nil)
    }

    @Test func aPassphraseChangeByAnotherProcessKeepsALiveBackendWorking() throws {
        let cli = try CLIStore()
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        try backend.add(genericItem("svc", "acct", "1"))

        let changed = try cli.run(["passwd"], input: Data("next passphrase\n".utf8))
        #expect(changed.status == 0, "\(changed.errorText)")

        // Same master key, so the live backend reads and writes on, and what it writes opens
        // with the new passphrase.
        #expect(try storedSecret(backend, "svc", "acct") == Data("1".utf8))
        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("svc"), .account: .string("acct")]))
        #expect(try backend.update(query, with: ItemChanges(secret: SecretBytes(Data("2".utf8)))) == 1)
        let read = try cli.run(["get", "svc", "acct"], changing: ["KEYCHAIN_FILE_PASSPHRASE": "next passphrase", "KEYCHAIN_FILE_CACHE_SECONDS": "0"])
        #expect(read.status == 0 && read.output == Data("2".utf8), "\(read.errorText)")
        // The old passphrase no longer authorizes a change: the new header is what is checked.
        let refused = keychainError { try backend.changePassphrase(to: SecretBytes(Data("third".utf8))) }
        #expect(refused?.status == errSecAuthFailed)
    }

    @Test func aStoreMadeUnsafeBetweenCallsIsRefusedAtTheNextCall() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "1"))

        #expect(chmod(store.directory, 0o777) == 0)
        #expect(keychainError { _ = try storedSecret(backend, "svc", "acct") }?.status == errSecNotAvailable)
        #expect(chmod(store.directory, 0o700) == 0)
        #expect(try storedSecret(backend, "svc", "acct") == Data("1".utf8))

        try FileManager.default.moveItem(atPath: store.directory, toPath: store.root + "/real")
        #expect(symlink(store.root + "/real", store.directory) == 0)
        let refused = keychainError { _ = try storedSecret(backend, "svc", "acct") }
        #expect(refused?.status == errSecNotAvailable)
        #expect(refused?.message.contains("symbolic link") == true, "\(String(describing: refused))")
    }

    @Test func aHeaderRestoredInPlaceIsReadAgain() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "1"))
        let header = try store.contents("store-header")

        // Damage written into the same file (same inode) is noticed by its new times.
        var damaged = header
        damaged[damaged.count - 1] ^= 0x01
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: store.directory + "/store-header"))
        try file.write(contentsOf: damaged)
        try file.close()
        #expect(keychainError { _ = try storedSecret(backend, "svc", "acct") }?.status == errSecDecode)

        try store.replace("store-header", with: header)
        #expect(try storedSecret(backend, "svc", "acct") == Data("1".utf8))
    }

    @Test func manyThreadsShareOneKeptStore() async throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "shared", "0"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for round in 0..<20 {
                        try backend.add(genericItem("svc", "t\(thread)-\(round)", "\(round)"))
                        #expect(try storedSecret(backend, "svc", "t\(thread)-\(round)") == Data("\(round)".utf8))
                        #expect(try storedSecret(backend, "svc", "shared") != nil)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try everyItem(backend).count == 1 + 8 * 20)
    }
}
