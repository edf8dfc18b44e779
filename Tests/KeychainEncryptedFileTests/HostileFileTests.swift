import Foundation
import Glibc
import KeychainConformance
import Testing

/// Files that are not what they should be, and a writer that stops while it holds the store:
/// every command finishes, with an error that names the cause, instead of hanging.
@Suite("file backend: FIFOs and stopped writers never hang")
struct HostileFileTests {
    /// Seconds a command may take before the test counts it as hung.
    static let hang = 20.0

    private func replaceWithFIFO(_ path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0, "mkfifo \(path): \(String(cString: strerror(errno)))")
    }

    @Test(arguments: ["item", "store-header", "lock"])
    func aFIFOInPlaceOfAStoreFileIsReportedAsDamaged(_ which: String) throws {
        let cli = try CLIStore(cacheSeconds: 0)
        try cli.set("svc", "acct", Data("secret".utf8))
        let itemFile = try #require(cli.store.itemFiles().first)
        let file = which == "item" ? itemFile : which
        try replaceWithFIFO(cli.directory + "/" + file)
        for arguments in [["get", "svc", "acct"], ["list"], ["set", "svc", "other"]] {
            let result = try cli.run(arguments, input: Data("x".utf8), timeout: Self.hang)
            #expect(!result.timedOut, "linux-keychain \(arguments.joined(separator: " ")) hung on a FIFO as \(file)")
            if which == "item" && arguments[0] == "set" { continue }  // does not read that item
            #expect(result.status == 1, "linux-keychain \(arguments.joined(separator: " ")) with a FIFO as \(file): exit \(result.status)")
            #expect(result.errorText.contains("is damaged or was altered") && result.errorText.contains("not a regular file")
                    && result.errorText.contains(file), Comment(rawValue: result.errorText))
        }
    }

    @Test func aFIFOAsThePassphraseFileIsRefusedWithoutWaiting() throws {
        let cli = try CLIStore(cacheSeconds: 0)
        try cli.set("svc", "acct", Data("secret".utf8))
        let fifo = cli.store.root + "/passphrase-fifo"
        try replaceWithFIFO(fifo)
        let result = try cli.run(["get", "svc", "acct"], changing: [
            "KEYCHAIN_FILE_PASSPHRASE": "", "KEYCHAIN_FILE_PASSPHRASE_FILE": fifo,
        ], timeout: Self.hang)
        #expect(!result.timedOut, "linux-keychain get hung on a FIFO as the passphrase file")
        #expect(result.status == 1)
        #expect(result.errorText.contains("not a regular file") && result.errorText.contains(fifo), Comment(rawValue: result.errorText))
    }

    /// A writer stopped while it holds the lock (here `flock`, stopped with SIGSTOP) makes the
    /// others wait `KEYCHAIN_FILE_LOCK_TIMEOUT` seconds, then fail naming its PID.
    @Test func aStoppedLockHolderCostsABoundedWaitAndIsNamed() throws {
        let cli = try CLIStore(cacheSeconds: 0)
        try cli.set("svc", "acct", Data("secret".utf8))
        let lock = cli.directory + "/lock"
        let holder = KeychainCLIProcess("/usr/bin/flock", ["--exclusive", "--no-fork", lock, "/bin/sleep", "300"])
        let pid = try #require(holder.processIdentifier)
        defer {
            kill(pid, SIGKILL)
            kill(pid, SIGCONT)
            _ = try? holder.wait(timeout: 10)
        }
        // Held once a non-blocking attempt fails.
        var held = false
        for _ in 0..<200 where !held {
            held = try KeychainCLIProcess.run("/usr/bin/flock", ["--nonblock", "--shared", lock, "/bin/true"]).status != 0
            if !held { Thread.sleep(forTimeInterval: 0.02) }
        }
        try #require(held, "flock never took the lock")
        #expect(kill(pid, SIGSTOP) == 0)

        for arguments in [["get", "svc", "acct"], ["set", "svc", "acct"], ["list"]] {
            let started = Date()
            let result = try cli.run(arguments, input: Data("new".utf8), changing: ["KEYCHAIN_FILE_LOCK_TIMEOUT": "1"], timeout: Self.hang)
            let took = Date().timeIntervalSince(started)
            #expect(!result.timedOut, "linux-keychain \(arguments[0]) hung behind a stopped lock holder")
            #expect(result.status == 1 && took >= 1, "linux-keychain \(arguments[0]): exit \(result.status) after \(took) s")
            #expect(result.errorText.contains("holds the keychain store") && result.errorText.contains("process \(pid)")
                    && result.errorText.contains("KEYCHAIN_FILE_LOCK_TIMEOUT"), Comment(rawValue: result.errorText))
        }

        kill(pid, SIGKILL)
        kill(pid, SIGCONT)
        _ = try holder.wait(timeout: 10)
        let after = try cli.run(["get", "svc", "acct"], timeout: Self.hang)
        #expect(after.status == 0 && after.output == Data("secret".utf8), "the store was changed while locked: \(after.errorText)")
    }

    /// Two ordinary `linux-keychain set`s of one name in NFC and in NFD made `list` call the store
    /// damaged; they are two items, each with its own secret.
    @Test func canonicallyEquivalentNamesAreTwoItemsThroughTheCLI() throws {
        let cli = try CLIStore(cacheSeconds: 0)
        let spellings = ["caf\u{E9}", "cafe\u{301}"]
        for (index, account) in spellings.enumerated() { try cli.set("svc", account, Data("secret \(index)".utf8)) }
        let list = try cli.run(["list"], timeout: Self.hang)
        #expect(list.status == 0 && !list.errorText.contains("damaged"), Comment(rawValue: list.errorText))
        for (index, account) in spellings.enumerated() {
            let get = try cli.run(["get", "svc", account], timeout: Self.hang)
            #expect(get.status == 0 && get.output == Data("secret \(index)".utf8), "\(Array(account.unicodeScalars)): \(get.errorText)")
        }
        #expect(try cli.run(["delete", "svc", spellings[0]], timeout: Self.hang).status == 0)
        #expect(try cli.run(["get", "svc", spellings[1]], timeout: Self.hang).output == Data("secret 1".utf8))
    }
}
