import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The store shared by separate `linux-keychain` processes: what one writes the next reads, and
/// concurrent writers neither lose nor duplicate anything.
@Suite("file backend: many processes through the CLI")
struct CLIProcessTests {
    @Test func aSecretSetByOneProcessIsReadByAnotherByteForByte() throws {
        let cli = try CLIStore()
        let binary = Data((0...255).map { UInt8($0) } + [10, 0, 13, 10])
        try cli.set("svc", "binary", binary)
        let read = try cli.run(["get", "svc", "binary"])
        #expect(read.status == 0, Comment(rawValue: read.errorText))
        #expect(read.output == binary)

        // The library in this process sees the same store, and the CLI sees what it writes.
        let backend = cli.store.backend(passphrase: "cli test passphrase")
        #expect(try storedSecret(backend, "svc", "binary") == binary)
        try backend.add(genericItem("svc", "from-library", "written in-process"))
        #expect(try cli.run(["get", "svc", "from-library"]).output == Data("written in-process".utf8))

        let missing = try cli.run(["get", "svc", "nothing"])
        #expect(missing.status == CLIExit.notFound)
    }

    @Test func eightConcurrentWritersLoseNothing() throws {
        let cli = try CLIStore()
        try cli.set("svc", "warm-up", Data("unlocks and caches the key".utf8))
        let writers = (0..<8).map { cli.start(["set", "svc", "writer\($0)"], input: Data("value \($0)".utf8)) }
        for (index, writer) in writers.enumerated() {
            let result = try writer.wait()
            #expect(result.status == 0, "writer \(index): \(result.errorText)")
        }
        for index in 0..<8 {
            #expect(try cli.run(["get", "svc", "writer\(index)"]).output == Data("value \(index)".utf8), "writer \(index)'s item is wrong")
        }
        let listed = try cli.run(["list", "svc", "--json"])
        let rows = try JSONSerialization.jsonObject(with: listed.output) as? [[String: Any]]
        #expect(rows?.count == 9, "list shows \(rows?.count ?? -1) items instead of 9")

        // Eight processes overwriting one item: all succeed and one of their values remains.
        let overwriters = (0..<8).map { cli.start(["set", "svc", "shared"], input: Data("shared \($0)".utf8)) }
        for overwriter in overwriters { #expect(try overwriter.wait().status == 0) }
        let final = try cli.run(["get", "svc", "shared"]).output
        #expect((0..<8).map { Data("shared \($0)".utf8) }.contains(final), "the shared item holds none of the written values")
    }

    @Test func ofEightRacingAddsExactlyOneWins() throws {
        let cli = try CLIStore()
        try cli.set("svc", "warm-up", Data("x".utf8))
        let racers = (0..<8).map { cli.start(["add", "svc", "contested"], input: Data("racer \($0)".utf8)) }
        let results = try racers.map { try $0.wait() }
        let winners = results.indices.filter { results[$0].status == 0 }
        let duplicates = results.filter { $0.status == CLIExit.duplicate }
        #expect(winners.count == 1 && duplicates.count == 7,
                "statuses \(results.map(\.status)), errors \(results.map(\.errorText).filter { !$0.isEmpty })")
        if let winner = winners.first {
            #expect(try cli.run(["get", "svc", "contested"]).output == Data("racer \(winner)".utf8), "the stored value is not the winner's")
        }
    }

    @Test func killNineDuringOverwritesLeavesTheOldOrTheNewValue() throws {
        let cli = try CLIStore()
        func value(_ round: Int) -> Data {
            // Large enough that the write takes a while, with the round in every block.
            Data((0..<2048).flatMap { _ in Array(String(format: "round %08d ", round).utf8) })
        }
        try cli.set("svc", "target", value(0))
        var committed = value(0)
        var outcomes = (old: 0, new: 0)
        for round in 1...40 {
            let attempted = value(round)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: cli.cli)
            process.arguments = ["set", "svc", "target"]
            process.environment = ProcessInfo.processInfo.environment.merging(cli.environment) { _, new in new }
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(attempted)
            try input.fileHandleForWriting.close()
            usleep(UInt32.random(in: 0...30_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let read = try cli.run(["get", "svc", "target"])
            #expect(read.status == 0, "round \(round): the item could not be read after kill -9: \(read.errorText)")
            if read.output == attempted {
                committed = attempted
                outcomes.new += 1
            } else if read.output == committed {
                outcomes.old += 1
            } else {
                Issue.record("round \(round): the item holds neither its old nor its new value (\(read.output.count) bytes)")
            }
        }
        // Whatever the split (it depends on timing), a later write works and leaves no debris.
        try cli.set("svc", "target", Data("final".utf8))
        #expect(try cli.run(["get", "svc", "target"]).output == Data("final".utf8))
        #expect(cli.store.files().filter { $0.contains(".tmp-") }.isEmpty, "temporary files remain: \(cli.store.files())")
        print("kill -9 loop: \(outcomes.old) rounds kept the old value, \(outcomes.new) had the new one")
    }

    @Test func passwdChangesThePassphrase() throws {
        let cli = try CLIStore(cacheSeconds: 0)
        try cli.set("svc", "acct", Data("kept".utf8))
        let wrongCurrent = try cli.run(["passwd"], input: Data("next\n".utf8), changing: ["KEYCHAIN_FILE_PASSPHRASE": "not it"])
        #expect(wrongCurrent.status == 1)
        #expect(wrongCurrent.errorText.contains("does not unlock"), Comment(rawValue: wrongCurrent.errorText))

        let changed = try cli.run(["passwd"], input: Data("next passphrase\n".utf8))
        #expect(changed.status == 0, Comment(rawValue: changed.errorText))
        let old = try cli.run(["get", "svc", "acct"])
        #expect(old.status == 1 && old.errorText.contains("does not unlock"), Comment(rawValue: old.errorText))
        let new = try cli.run(["get", "svc", "acct"], changing: ["KEYCHAIN_FILE_PASSPHRASE": "next passphrase"])
        #expect(new.status == 0 && new.output == Data("kept".utf8), Comment(rawValue: new.errorText))
    }
}
