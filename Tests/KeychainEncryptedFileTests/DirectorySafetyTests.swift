import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The store directory: created private, and refused when someone else could tamper with it.
@Suite("file backend: the store directory")
struct DirectorySafetyTests {
    @Test func aNewStoreIsPrivateWithMissingParentsCreated() throws {
        let store = try TemporaryStore()
        let nested = store.root + "/a/b/store"
        let backend = store.backend(directory: nested)
        try backend.add(genericItem("svc", "acct", "s"))
        for directory in [store.root + "/a", store.root + "/a/b", nested, nested + "/items"] {
            #expect(mode(of: directory) == 0o700, "\(directory) has mode \(String(mode(of: directory), radix: 8))")
        }
        for file in store.files(in: nested) {
            #expect(mode(of: nested + "/" + file) == 0o600, "\(file) has mode \(String(mode(of: nested + "/" + file), radix: 8))")
        }
        for bucket in Set(store.itemFiles(in: nested).map { ($0 as NSString).deletingLastPathComponent }) {
            #expect(mode(of: nested + "/" + bucket) == 0o700)
        }
    }

    @Test func aSymlinkedStoreDirectoryIsRefused() throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        let link = store.root + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store.directory)
        for path in [link, link + "/"] {
            let backend = store.backend(directory: path)
            let error = keychainError { _ = try storedSecret(backend, "svc", "acct") }
            #expect(error?.status == errSecNotAvailable)
            #expect(error?.message.contains("symbolic link") == true, "\(String(describing: error))")
            #expect(!backend.availability().isAvailable)
        }
    }

    @Test(arguments: [0o770, 0o702, 0o777] as [mode_t])
    func aDirectoryOthersCanWriteIsRefused(_ permissions: mode_t) throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        #expect(chmod(store.directory, permissions) == 0)
        let error = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("writable by group or others") == true, "\(String(describing: error))")
        #expect(error?.message.contains("chmod 700") == true)
        #expect(!store.backend().availability().isAvailable)
    }

    @Test func aDirectoryOwnedByAnotherUserIsRefused() throws {
        let store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "acct", "s"))
        guard chown(store.directory, 65534, 65534) == 0 else {
            try Test.cancel("changing a directory's owner needs root (errno \(errno))")
        }
        let error = keychainError { _ = try storedSecret(store.backend(), "svc", "acct") }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("belongs to user 65534") == true, "\(String(describing: error))")
    }

    @Test func aStorePathThatIsAFileIsRefused() throws {
        let store = try TemporaryStore()
        #expect(FileManager.default.createFile(atPath: store.directory, contents: Data("x".utf8)))
        let error = keychainError { try store.backend().add(genericItem("svc", "acct", "s")) }
        #expect(error?.status == errSecNotAvailable)
        #expect(error?.message.contains("not a directory") == true)
    }

    @Test func readingAMissingStoreCreatesNothing() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        #expect(try storedSecret(backend, "svc", "acct") == nil)
        #expect(try backend.delete(ItemQuery(itemClass: .genericPassword)) == 0)
        #expect(!FileManager.default.fileExists(atPath: store.directory), "a read created the store")
        #expect(backend.availability().explanation.contains("new store"))
    }

    @Test func staleTemporaryFilesAreIgnoredByReadersAndRemovedByWriters() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "acct", "old"))
        let path = try #require(store.itemFiles().first)
        let bucket = store.directory + "/" + (path as NSString).deletingLastPathComponent
        // What a writer killed between creating and renaming its temporary file leaves.
        #expect(FileManager.default.createFile(atPath: bucket + "/.tmp-0123456789abcdef01234567", contents: Data("junk".utf8)))
        #expect(try storedSecret(backend, "svc", "acct") == Data("old".utf8))
        _ = try backend.update(ItemQuery(primaryKey: genericItem("svc", "acct", "").primaryKey),
                               with: ItemChanges(secret: SecretBytes(Data("new".utf8))))
        #expect(try storedSecret(backend, "svc", "acct") == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bucket).filter { $0.hasPrefix(".tmp-") }.isEmpty)
    }
}
