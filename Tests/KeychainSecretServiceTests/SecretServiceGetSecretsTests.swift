import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// The shim sends `Service.GetSecrets` itself and has libsecret decode each answer: every
    /// item's secret must come back to that item, byte for byte, however many are asked for at
    /// once and in whatever order the provider answers; an item deleted or locked meanwhile
    /// gets none, and the others keep theirs.
    @Suite("GetSecrets sent by the shim")
    struct GetSecrets {
        let backend = SecretServiceTestSupport.backend

        init() throws { try SecretServiceTestSupport.requireAvailable() }

        /// Text, bytes that are not UTF-8 (stored by KeePassXC as an attachment), and nothing.
        static let secrets: [(account: String, secret: Data)] = [
            ("text", Data("plain text".utf8)),
            ("binary", Data([0xFF, 0x00, 0xC3, 0x28, 0x80, 0xFE])),
            ("empty", Data()),
        ]

        static func query(_ service: String, secrets: Bool) -> ItemQuery {
            ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                      limit: .all, includeSecrets: secrets)
        }

        func addItems(_ service: String, in backend: SecretServiceBackend) throws {
            for (account, secret) in Self.secrets {
                try backend.add(genericItem(service, account, secret))
            }
        }

        /// The account of each match, in the order found, and the matches' paths.
        @LibsecretActor static func found(_ service: String, in session: LibsecretSession) throws -> (accounts: [String], paths: [String]) {
            let matched = try SecretServiceOperations.matches(query(service, secrets: false), in: session)
            return (matched.map { $0.item.attributes.string(.account) ?? "?" }, matched.map(\.stored.path))
        }

        static func expected(_ account: String) -> Data? { secrets.first { $0.account == account }?.secret }

        @Test func severalSecretsComeBackEachToItsItem() throws {
            let service = SecretServiceTestSupport.uniqueName("getsecrets")
            defer { _ = try? backend.delete(Self.query(service, secrets: false)) }
            try addItems(service, in: backend)

            let answers: [String] = try backend.perform("a test read") { session in
                let (accounts, paths) = try Self.found(service, in: session)
                guard accounts.count == Self.secrets.count else { return ["found \(accounts)"] }
                var wrong: [String] = []
                // Both orders: KeePassXC answers from a hash table, in an order of its own.
                for (order, indices) in [("found", Array(accounts.indices)), ("reversed", accounts.indices.reversed())] {
                    let loaded = try session.loadSecrets(indices.map { paths[$0] })
                    for (index, secret) in zip(indices, loaded) where secret?.makeData() != Self.expected(accounts[index]) {
                        wrong.append("loadSecrets (\(order)) gave \(accounts[index]) \(secret.map { Array($0.makeData()) }.debugDescription)")
                    }
                }
                for read in [StoredItem.Read.attributesAndSecrets, .propertiesAndSecrets] {
                    let items = try session.readItems(paths, read)
                    for (index, item) in zip(accounts.indices, items) where item.secret?.makeData() != Self.expected(accounts[index]) {
                        wrong.append("readItems (\(read)) gave \(accounts[index]) \(item.secret.map { Array($0.makeData()) }.debugDescription)")
                    }
                }
                return wrong
            }
            #expect(answers.isEmpty, "\(answers)")

            let items = try backend.search(Self.query(service, secrets: true))
            #expect(items.count == Self.secrets.count)
            for item in items {
                let account = try #require(item.attributes.string(.account))
                #expect(item.secret?.makeData() == Self.expected(account), "search gave \(account)")
            }
        }

        /// "Another program" deletes one of the items between the search and the read: it gets
        /// no secret, the others keep theirs. KWallet fails the whole GetSecrets for it: there
        /// loadSecrets asks for each item alone, and readItems gives the others without secrets
        /// (which the backend's search then loads).
        @Test func anItemDeletedAfterTheSearchLeavesTheOthersTheirSecrets() throws {
            let service = SecretServiceTestSupport.uniqueName("getdeleted")
            defer { _ = try? backend.delete(Self.query(service, secrets: false)) }
            try addItems(service, in: backend)

            let wrong: [String] = try backend.perform("a test read", holdingWriteLock: true) { session in
                let (accounts, paths) = try Self.found(service, in: session)
                guard accounts.count == Self.secrets.count else { return ["found \(accounts)"] }
                let matched = try SecretServiceOperations.matches(Self.query(service, secrets: false), in: session)
                guard try session.delete(matched[0].stored) else { return ["the first item could not be deleted"] }
                var wrong: [String] = []
                let loaded = try session.loadSecrets(paths)
                if loaded[0] != nil { wrong.append("loadSecrets gave the deleted item a secret") }
                for index in 1..<paths.count where loaded[index]?.makeData() != Self.expected(accounts[index]) {
                    wrong.append("loadSecrets gave \(accounts[index]) \(loaded[index].map { Array($0.makeData()) }.debugDescription)")
                }
                let items = try session.readItems(paths, .propertiesAndSecrets)
                if items.map(\.path) != Array(paths.dropFirst()) { wrong.append("readItems found \(items.map(\.path))") }
                let secretsMayBeMissing = SecretServiceTestSupport.provider == "kwallet"
                for (index, item) in zip(1..., items) where item.secret?.makeData() != Self.expected(accounts[index])
                    && !(item.secret == nil && secretsMayBeMissing) {
                    wrong.append("readItems gave \(accounts[index]) \(item.secret.map { Array($0.makeData()) }.debugDescription)")
                }
                return wrong
            }
            #expect(wrong.isEmpty, "\(wrong)")
        }

        /// gnome-keyring leaves a locked item out of GetSecrets' answer: no secret, no error,
        /// and an update that must read the old secrets first says the keyring is locked.
        @Test func aLockedCollectionHandsOutNoSecret() throws {
            try SecretServiceTestSupport.requireGnomeKeyring("creating a collection without a prompt")
            let (path, backend) = try LockedCollection.newCollection("getlocked")
            let service = SecretServiceTestSupport.uniqueName("getlocked")
            try addItems(service, in: backend)
            let paths: [String] = try backend.perform("a test search") { session in try Self.found(service, in: session).paths }
            try #require(paths.count == Self.secrets.count)

            _ = try LockedCollection.keyring(["lock", path])
            let (loaded, items): ([Bool], [StoredItem]) = try backend.perform("a test read") { session in
                (try session.loadSecrets(paths).map { $0 != nil }, try session.readItems(paths, .propertiesAndSecrets))
            }
            #expect(loaded == [false, false, false])
            #expect(items.count == paths.count && items.allSatisfy { $0.isLocked && $0.secret == nil })
            expectKeychainError(errSecInteractionNotAllowed) {
                _ = try backend.update(Self.query(service, secrets: false),
                                       with: ItemChanges(attributes: ItemAttributes(), secret: SecretBytes(Data("new".utf8))))
            }
        }

        /// A failed GetSecrets names the call the library made, not the libsecret function it
        /// no longer calls. A cancelled job makes the call fail on every provider.
        @Test func aFailedReadNamesGetSecrets() throws {
            let service = SecretServiceTestSupport.uniqueName("getnamed")
            defer { _ = try? backend.delete(Self.query(service, secrets: false)) }
            try addItems(service, in: backend)
            let paths: [String] = try backend.perform("a test search") { session in try Self.found(service, in: session).paths }
            for read in [StoredItem.Read.attributesAndSecrets, .propertiesAndSecrets, nil] {
                let failedCall: String? = try backend.perform("a cancelled read") { session in
                    session.call.cancellation.cancel()
                    do {
                        if let read { _ = try session.readItems(paths, read) } else { _ = try session.loadSecrets(paths) }
                        return nil
                    } catch let error as KeychainError {
                        return error.failedCall ?? "none"
                    }
                }
                let name = try #require(failedCall, "a cancelled \(read.debugDescription) read succeeded")
                #expect(name.contains("org.freedesktop.Secret.Service.GetSecrets") && !name.contains("secret_service_get_secrets"),
                        "\(read.debugDescription): \(name)")
            }
        }
    }
}
