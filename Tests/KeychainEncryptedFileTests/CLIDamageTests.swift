import Foundation
import KeychainConformance
import Testing

/// Damaged, misplaced and constrained stores, seen through the CLI: every failure is an
/// error that names its cause, and no read ever returns wrong bytes.
@Suite("file backend: damage and hostile conditions through the CLI")
struct CLIDamageTests {
    private static let items: [(account: String, secret: Data)] = [
        ("one", Data("first secret".utf8)), ("two", Data((0..<200).map { UInt8($0) })), ("three", Data()),
    ]

    /// A store with `items`, and a copy of it to damage.
    private func storeAndCopy() throws -> (CLIStore, CLIStore) {
        let original = try CLIStore()
        for item in Self.items { try original.set("svc", item.account, item.secret) }
        var copy = original
        copy.environment["KEYCHAIN_FILE_DIR"] = original.store.root + "/copy"
        try FileManager.default.copyItem(atPath: original.directory, toPath: copy.directory)
        return (original, copy)
    }

    /// Reads every item of `cli`: each read returns the right bytes or fails naming `damaged`.
    /// Returns how many failed.
    private func readEverything(_ cli: CLIStore, damaged: String, _ what: String) throws -> Int {
        var failures = 0
        for item in Self.items {
            let read = try cli.run(["get", "svc", item.account])
            if read.status == 0 {
                #expect(read.output == item.secret, "\(what): \(item.account) came back with wrong bytes")
            } else {
                failures += 1
                #expect(read.status == 1, "\(what): exit \(read.status)")
                #expect(read.errorText.contains("is damaged or was altered") && read.errorText.contains(damaged),
                        "\(what): \(item.account): \(read.errorText)")
            }
        }
        return failures
    }

    @Test func aBitFlipInAnyFileOfACopyIsDetected() throws {
        let (_, copy) = try storeAndCopy()
        let files = copy.store.files(in: copy.directory).filter { $0 != "lock" }
        #expect(files.count == 1 + Self.items.count, "unexpected files \(files)")
        for file in files {
            let original = try copy.store.contents(file, in: copy.directory)
            for offset in Set([0, 5, original.count / 2, original.count - 1]) {
                var flipped = original
                flipped[offset] ^= 0x10
                try copy.store.replace(file, with: flipped, in: copy.directory)
                let failures = try readEverything(copy, damaged: file, "\(file) byte \(offset) flipped")
                #expect(failures == (file == "store-header" ? Self.items.count : 1), "\(file) byte \(offset): \(failures) reads failed")
            }
            try copy.store.replace(file, with: original, in: copy.directory)
        }
        #expect(try readEverything(copy, damaged: "-", "restored copy") == 0)
    }

    @Test func truncationAtSeveralOffsetsIsDetected() throws {
        let (_, copy) = try storeAndCopy()
        for file in copy.store.files(in: copy.directory) where file != "lock" {
            let original = try copy.store.contents(file, in: copy.directory)
            for length in Set([0, 4, 6, 30, original.count - 16, original.count - 1]) where length < original.count {
                try copy.store.replace(file, with: original.prefix(length), in: copy.directory)
                let failures = try readEverything(copy, damaged: file, "\(file) cut to \(length) bytes")
                #expect(failures >= 1, "\(file) cut to \(length) bytes went unnoticed")
            }
            try copy.store.replace(file, with: original, in: copy.directory)
        }
    }

    @Test func aWrongPassphraseFailsWithAuthFailed() throws {
        let cli = try CLIStore(cacheSeconds: 0)
        try cli.set("svc", "acct", Data("s".utf8))
        let wrong = try cli.run(["get", "svc", "acct"], changing: ["KEYCHAIN_FILE_PASSPHRASE": "wrong passphrase"])
        #expect(wrong.status == 1)
        #expect(wrong.output.isEmpty)
        #expect(wrong.errorText.contains("does not unlock the keychain store"), Comment(rawValue: wrong.errorText))
        #expect(try cli.run(["get", "svc", "acct"]).output == Data("s".utf8))
    }

    @Test func umaskZeroStillGivesPrivateFiles() throws {
        var cli = try CLIStore()
        cli.environment["KEYCHAIN_FILE_DIR"] = cli.store.root + "/deep/store"
        let result = try KeychainCLIProcess.run("/bin/sh", ["-c", "umask 000 && exec \"$0\" \"$@\"", cli.cli, "set", "svc", "acct"],
                                                input: Data("s".utf8), environment: cli.environment)
        #expect(result.status == 0, Comment(rawValue: result.errorText))
        for directory in [cli.store.root + "/deep", cli.directory, cli.directory + "/items"] {
            #expect(mode(of: directory) == 0o700, "\(directory): \(String(mode(of: directory), radix: 8))")
        }
        let files = cli.store.files(in: cli.directory)
        #expect(files.count == 3, "expected header, lock and one item: \(files)")
        for file in files {
            #expect(mode(of: cli.directory + "/" + file) == 0o600, "\(file): \(String(mode(of: cli.directory + "/" + file), radix: 8))")
            let parent = (cli.directory + "/" + file as NSString).deletingLastPathComponent
            #expect(mode(of: parent) == 0o700, "\(parent): \(String(mode(of: parent), radix: 8))")
        }
    }

    @Test func aSymlinkedStoreDirectoryIsRefused() throws {
        var cli = try CLIStore()
        try cli.set("svc", "acct", Data("s".utf8))
        let link = cli.store.root + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: cli.directory)
        cli.environment["KEYCHAIN_FILE_DIR"] = link
        let get = try cli.run(["get", "svc", "acct"])
        #expect(get.status == CLIExit.unavailable && get.output.isEmpty)
        #expect(get.errorText.contains("is a symbolic link; refused"), Comment(rawValue: get.errorText))
        let backends = try cli.run(["backends"])
        #expect(backends.outputText.contains("symbolic link"), Comment(rawValue: backends.outputText))
    }

    @Test func aReadOnlyStoreRefusesWritesClearlyAndKeepsItsData() throws {
        var cli = try CLIStore()
        let mount = try TemporaryMount(under: cli.store.root, size: "4m")
        cli.environment["KEYCHAIN_FILE_DIR"] = mount.path + "/store"
        try cli.set("svc", "acct", Data("before".utf8))
        try mount.remount(readOnly: true)
        defer { try? mount.remount(readOnly: false) }

        for arguments in [["set", "svc", "acct"], ["add", "svc", "other"], ["delete", "svc", "acct"]] {
            let refused = try cli.run(arguments, input: Data("after".utf8))
            #expect(refused.status == 1, "\(arguments) on a read-only store: exit \(refused.status)")
            #expect(refused.errorText.contains("Read-only file system") && refused.errorText.contains("writable"),
                    "\(arguments): \(refused.errorText)")
        }
        let read = try cli.run(["get", "svc", "acct"])
        #expect(read.status == 0 && read.output == Data("before".utf8), Comment(rawValue: read.errorText))

        // A read-only copy without the lock file (which readers share) still reads.
        try mount.remount(readOnly: false)
        try FileManager.default.removeItem(atPath: mount.path + "/store/lock")
        try mount.remount(readOnly: true)
        let unlockedRead = try cli.run(["get", "svc", "acct"])
        #expect(unlockedRead.status == 0 && unlockedRead.output == Data("before".utf8), Comment(rawValue: unlockedRead.errorText))
    }

    @Test func aFullDiskFailsTheWriteAndKeepsTheOldValue() throws {
        var cli = try CLIStore()
        let mount = try TemporaryMount(under: cli.store.root, size: "1m")
        cli.environment["KEYCHAIN_FILE_DIR"] = mount.path + "/store"
        try cli.set("svc", "acct", Data("old value".utf8))
        // Fill what is left; dd stops with an error at ENOSPC.
        let filled = try runTool("/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler", "bs=4k"])
        #expect(filled.output.contains("No space left"), Comment(rawValue: filled.output))

        let big = Data(repeating: 0x41, count: 64 * 1024)
        let refused = try cli.run(["set", "svc", "acct"], input: big)
        #expect(refused.status == 1)
        #expect(refused.errorText.contains("No space left on device") && refused.errorText.contains("previous contents were kept"),
                Comment(rawValue: refused.errorText))
        let added = try cli.run(["add", "svc", "new"], input: big)
        #expect(added.status == 1)
        #expect(try cli.run(["get", "svc", "acct"]).output == Data("old value".utf8))
        #expect(try cli.run(["get", "svc", "new"]).status == CLIExit.notFound)
        #expect(cli.store.files(in: cli.directory).filter { $0.contains(".tmp-") }.isEmpty)

        try FileManager.default.removeItem(atPath: mount.path + "/filler")
        try cli.set("svc", "acct", big)
        #expect(try cli.run(["get", "svc", "acct"]).output == big)
    }
}
