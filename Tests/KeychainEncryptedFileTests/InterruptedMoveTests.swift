import CSodium
import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// An update that changes an item's primary key moves its file. A crash in the middle must
/// leave the item at its old key or at its new one, never at both or neither. These tests build
/// the states a crash can leave (from a real move done in a copy of the store) and check that the
/// next reader settles them.
@Suite("file backend: interrupted moves")
struct InterruptedMoveTests {
    private let store: TemporaryStore
    private let oldFile: String
    private let newFile: String
    private let pristine: String

    init() throws {
        store = try TemporaryStore()
        try store.backend().add(genericItem("svc", "old", "the secret"))
        oldFile = try #require(store.itemFiles().first)
        pristine = store.root + "/pristine"
        try FileManager.default.copyItem(atPath: store.directory, toPath: pristine)

        // The real move, in a copy with the same keys, shows where the item goes.
        let probe = store.root + "/probe"
        try FileManager.default.copyItem(atPath: store.directory, toPath: probe)
        let moved = try store.backend(directory: probe).update(Self.query("old"), with: ItemChanges(attributes: ItemAttributes([.account: .string("new")])))
        #expect(moved == 1)
        newFile = try #require(store.itemFiles(in: probe).first)
        #expect(newFile != oldFile)
        #expect(store.itemFiles(in: probe) == [newFile], "the completed move left \(store.itemFiles(in: probe))")
        #expect(!store.files(in: probe).contains("rename-journal"))
        // The crash state "journal and new file written, old file not yet removed".
        try FileManager.default.createDirectory(atPath: store.directory + "/" + (newFile as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try store.replace(newFile, with: try store.contents(newFile, in: probe))
    }

    @Test func aMoveInterruptedAfterItsNewFileIsCompleted() throws {
        try store.replace("rename-journal", with: journal(from: oldFile, to: newFile))
        let backend = store.backend()
        #expect(try storedSecret(backend, "svc", "new") == Data("the secret".utf8))
        #expect(try storedSecret(backend, "svc", "old") == nil)
        #expect(try everyItem(backend).count == 1)
        #expect(store.itemFiles() == [newFile])
        #expect(!store.files().contains("rename-journal"))
    }

    @Test func aMoveInterruptedBeforeItsNewFileIsUndone() throws {
        try FileManager.default.removeItem(atPath: store.directory)
        try FileManager.default.copyItem(atPath: pristine, toPath: store.directory)
        try store.replace("rename-journal", with: journal(from: oldFile, to: newFile))
        let backend = store.backend()
        #expect(try everyItem(backend).map { $0.attributes.string(.account) } == ["old"])
        #expect(store.itemFiles() == [oldFile])
        #expect(!store.files().contains("rename-journal"))
    }

    @Test func withoutAJournalBothFilesAreTwoItems() throws {
        // No journal means no move was in progress: both files are items in their own right
        // (the state can only be made by hand), and nothing is removed.
        #expect(try everyItem(store.backend()).count == 2)
    }

    @Test func aDamagedJournalIsReportedNotGuessedAt() throws {
        var damaged = journal(from: oldFile, to: newFile)
        damaged[20] ^= 1
        try store.replace("rename-journal", with: damaged)
        let error = keychainError { _ = try storedSecret(store.backend(), "svc", "old") }
        #expect(error?.status == errSecDecode)
        #expect(error?.message.contains("rename-journal") == true, "\(String(describing: error))")
        #expect(Set(store.itemFiles()) == [oldFile, newFile], "a damaged journal made the store remove files")
    }

    private static func query(_ account: String) -> ItemQuery {
        ItemQuery(primaryKey: genericItem("svc", account, "").primaryKey)
    }

    /// A journal for one move, as `RenameJournal` writes it.
    private func journal(from: String, to: String) -> Data {
        func location(_ path: String) -> Data { Data(path.dropFirst("items/".count).utf8) }
        var body = Data("LKCJ".utf8) + Data([0, 1, 0, 0, 0, 1])
        body += location(from) + location(to)
        var checksum = [UInt8](repeating: 0, count: 32)
        let bytes = [UInt8](body)
        _ = crypto_generichash(&checksum, 32, bytes, UInt64(bytes.count), nil, 0)
        return body + Data(checksum)
    }
}

/// A move that fails half-way (here on a full disk) is undone before the error is returned.
@Suite("file backend: failed moves")
struct FailedMoveTests {
    @Test func aMoveThatRunsOutOfSpaceLeavesEveryItemAtItsOldKey() throws {
        let store = try TemporaryStore()
        let mount = try TemporaryMount(under: store.root, size: "1m")
        let directory = mount.path + "/store"
        let backend = store.backend(directory: directory)
        let big = String(repeating: "x", count: 64 * 1024)
        for (account, secret) in [("a", "small a"), ("b", "small b"), ("c", big)] {
            try backend.add(genericItem("before", account, secret))
        }
        // Leave room for the journal and the small items' new files, not for the big one's.
        let spacer = mount.path + "/spacer"
        #expect(FileManager.default.createFile(atPath: spacer, contents: Data(count: 16 * 1024)))
        let filled = try runTool("/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler", "bs=4k"])
        #expect(filled.output.contains("No space left"), Comment(rawValue: filled.output))
        try FileManager.default.removeItem(atPath: spacer)

        let query = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string("before")]))
        let error = keychainError {
            _ = try backend.update(query, with: ItemChanges(attributes: ItemAttributes([.service: .string("after")])))
        }
        #expect(error?.status == errSecDiskFull, "\(String(describing: error))")
        for (account, secret) in [("a", "small a"), ("b", "small b"), ("c", big)] {
            #expect(try storedSecret(backend, "before", account) == Data(secret.utf8), "\(account) is not at its old key")
            #expect(try storedSecret(backend, "after", account) == nil, "\(account) is also at its new key")
        }
        #expect(!store.files(in: directory).contains { $0 == "rename-journal" || $0.contains(".tmp-") }, "\(store.files(in: directory))")
    }

    /// Once every new file is written the move is done (a crash from then on is completed, not
    /// undone), so a failure to remove an old file must not report the update as failed.
    @Test func aMoveWhoseOldFileCannotBeRemovedIsReportedDone() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "old", "the secret"))
        let oldBucket = store.directory + "/" + (try #require(store.itemFiles().first) as NSString).deletingLastPathComponent
        // A read-only bind mount over the old bucket: its file cannot be removed. (Not chattr +i,
        // which needs privileges a test run in its own user namespace does not have.)
        let readOnly = try runTool("/bin/sh", ["-c", "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\"", oldBucket])
        guard readOnly.status == 0 else {
            _ = try? runTool("/bin/umount", [oldBucket])
            try Test.cancel(Comment(rawValue: "a read-only bind mount is not possible here (needs root or a mount namespace of one's own): \(readOnly.output)"))
        }
        var mounted = true
        defer { if mounted { _ = try? runTool("/bin/umount", [oldBucket]) } }

        let query = ItemQuery(primaryKey: genericItem("svc", "old", "").primaryKey)
        var moved: Int?
        let thrown = catchError { moved = try backend.update(query, with: ItemChanges(attributes: ItemAttributes([.account: .string("new")]))) }
        #expect(thrown == nil && moved == 1, "the move threw \(String(describing: thrown)) although it takes effect")

        #expect(try runTool("/bin/umount", [oldBucket]).status == 0)
        mounted = false
        #expect(try storedSecret(backend, "svc", "new") == Data("the secret".utf8))
        #expect(try storedSecret(backend, "svc", "old") == nil)
        #expect(!store.files().contains("rename-journal"))
    }
}

private func catchError(_ body: () throws -> Void) -> (any Error)? {
    do { try body() } catch { return error }
    return nil
}
