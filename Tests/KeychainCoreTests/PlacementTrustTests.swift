import Foundation
import KeychainCore
import Testing

/// The configuration files and the record are trust boundaries: what they may name, who may
/// own and write them, and what their errors may repeat (docs/operators.md).
@Suite("placement: the record and the configuration files are trust boundaries")
struct PlacementTrustTests {
    typealias Scratch = PlacementTests.Scratch

    private func registry(_ placement: BackendPlacement) -> KeychainBackendRegistry {
        let registry = KeychainBackendRegistry(placement: placement)
        registry.register("first", automaticRank: 1) { MemoryBackend() }
        registry.register("pinned") { MemoryBackend() }
        registry.register(MemoryBackend.backendName) { MemoryBackend() }
        return registry
    }

    private func selectionError(_ scratch: Scratch, _ extra: [String: String] = [:]) -> KeychainError? {
        #expect(throws: KeychainError.self) { try registry(scratch.placement(extra)).resolveSelection() }
    }

    private func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func aRecordOfAutoIsRefusedInsteadOfRecursingUntilTheStackRunsOut() throws {
        let scratch = Scratch()
        try scratch.write("auto\n", to: scratch.recordFile)
        let error = selectionError(scratch)
        #expect(error?.status == errSecParam)
        #expect(error?.message.contains(scratch.recordFile) == true)
        #expect(throws: KeychainError.self) { try registry(scratch.placement()).select("auto") }
    }

    @Test func memoryIsNeverRecordedNorPinned() throws {
        let scratch = Scratch()
        try scratch.write("memory\n", to: scratch.recordFile)
        let recorded = selectionError(scratch)
        #expect(recorded?.status == errSecParam)
        #expect(recorded?.message.contains("only in the memory of the process") == true, "\(String(describing: recorded))")
        try FileManager.default.removeItem(atPath: scratch.recordFile)

        try scratch.write("backend = memory\n", to: scratch.userFile)
        let pinned = selectionError(scratch)
        #expect(pinned?.status == errSecParam)
        #expect(pinned?.message.contains(scratch.userFile + ":1") == true)
        try FileManager.default.removeItem(atPath: scratch.userFile)

        #expect(throws: KeychainError.self) { try scratch.placement().pin(MemoryBackend.backendName) }
        #expect(!FileManager.default.fileExists(atPath: scratch.userFile), "a refused pin wrote the file")
        #expect(throws: KeychainError.self) { try scratch.placement().claim(MemoryBackend.backendName) }
        #expect(!FileManager.default.fileExists(atPath: scratch.recordFile), "a refused claim wrote the record")
        // The environment may still choose it, for one process.
        let chosen = try registry(scratch.placement([KeychainBackendRegistry.selectionVariable: "memory"])).resolveSelection()
        #expect(chosen.source == .environment)
    }

    @Test func aRecordThatIsASymbolicLinkIsRefusedAndWhatItPointsAtNeverEchoed() throws {
        let scratch = Scratch()
        let secretFile = scratch.directory + "/shadow-like"
        try scratch.write("root:$6$not-for-messages\n", to: secretFile)
        try chmod(secretFile, 0o600)
        try FileManager.default.createDirectory(atPath: scratch.directory + "/state/linux-keychain", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.recordFile, withDestinationPath: secretFile)
        let error = selectionError(scratch)
        #expect(error?.status == errSecParam)
        #expect(error?.message.contains("symbolic link") == true, "\(String(describing: error))")
        #expect(error?.message.contains("not-for-messages") == false)
        #expect(error?.message.contains("root:") == false)
        // A link to a record that would be valid is refused all the same.
        try FileManager.default.removeItem(atPath: scratch.recordFile)
        try scratch.write("pinned\n", to: secretFile)
        try FileManager.default.createSymbolicLink(atPath: scratch.recordFile, withDestinationPath: secretFile)
        #expect(selectionError(scratch)?.status == errSecParam)
    }

    @Test func aRecordHoldingAnythingButAKnownNameIsRefusedWithoutRepeatingIt() throws {
        let scratch = Scratch()
        for content in ["pinned\nsecond-line\n", String(repeating: "x", count: 200), "two words\n", "\u{1b}[31mcrimson\n", "unregistered\n"] {
            try scratch.write(content, to: scratch.recordFile)
            let error = selectionError(scratch)
            #expect(error?.status == errSecParam, "\(content.debugDescription)")
            let echoed = ["second-line", "xxxxxxxx", "two words", "crimson", "unregistered"].filter { error?.message.contains($0) == true }
            #expect(echoed.isEmpty, "the error repeats the record's content: \(String(describing: error))")
        }
        try scratch.write("pinned\n", to: scratch.recordFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .recorded(scratch.recordFile))
    }

    @Test func filesOthersCanWriteAreRefusedAsStrictModesRefusesThem() throws {
        let scratch = Scratch()
        try scratch.write("backend = pinned\n", to: scratch.userFile)
        #expect(try registry(scratch.placement()).resolveSelection().source == .userFile(scratch.userFile))
        for mode in [0o666, 0o620, 0o602] {
            try chmod(scratch.userFile, mode)
            let error = selectionError(scratch)
            #expect(error?.status == errSecParam)
            #expect(error?.message.contains("writable by its group or by others") == true, "\(String(describing: error))")
        }
        try chmod(scratch.userFile, 0o644)
        // Whoever can write the directory can replace the file.
        let directory = scratch.directory + "/config/linux-keychain"
        try chmod(directory, 0o777)
        #expect(selectionError(scratch)?.message.contains("which its group or others can write") == true)
        // A sticky directory (as /tmp) lets nobody else replace it.
        try chmod(directory, 0o1777)
        #expect(try registry(scratch.placement()).resolveSelection().source == .userFile(scratch.userFile))
        try chmod(directory, 0o755)

        try FileManager.default.removeItem(atPath: scratch.userFile)
        try scratch.write("backend = pinned\n", to: scratch.systemFile)
        try chmod(scratch.systemFile, 0o646)
        #expect(selectionError(scratch)?.status == errSecParam)
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func filesOwnedByAnotherUserAreRefused() throws {
        let scratch = Scratch()
        try scratch.write("backend = pinned\nKEYCHAIN_FILE_DIR = /elsewhere\n", to: scratch.systemFile)
        guard chown(scratch.systemFile, 4321, 4321) == 0 else { Issue.record("chown failed"); return }
        let system = selectionError(scratch)
        #expect(system?.message.contains("owned by uid 4321") == true, "\(String(describing: system))")
        // Nothing of an untrusted file reaches the backends' settings either.
        #expect(scratch.placement().effectiveEnvironment["KEYCHAIN_FILE_DIR"] == nil)

        try FileManager.default.removeItem(atPath: scratch.systemFile)
        try scratch.write("backend = pinned\n", to: scratch.userFile)
        guard chown(scratch.userFile, 4321, 4321) == 0 else { Issue.record("chown failed"); return }
        #expect(selectionError(scratch)?.message.contains("owned by uid 4321") == true)
    }

    @Test func libraryPathsAndSecretsComeFromTheEnvironmentOnly() throws {
        let scratch = Scratch()
        for key in ["KEYCHAIN_LIBSECRET_PATH", "KEYCHAIN_LIBCURL_PATH", "KEYCHAIN_VAULT_ROLE_ID", "KEYCHAIN_VAULT_SECRET_ID",
                    "KEYCHAIN_FILE_PASSPHRASE", "VAULT_TOKEN", "BAO_TOKEN"] {
            try scratch.write("\(key) = /tmp/planted\n", to: scratch.systemFile)
            let error = selectionError(scratch)
            #expect(error?.status == errSecParam, "\(key)")
            #expect(error?.message.contains("\(scratch.systemFile):1: \(key)") == true, "\(String(describing: error))")
            #expect(scratch.placement().effectiveEnvironment[key] == nil, "\(key) from a file reached the settings")
        }
        // Files that hold a secret are named, not refused.
        try scratch.write("KEYCHAIN_VAULT_SECRET_ID_FILE = /run/credentials/app/secret-id\n", to: scratch.systemFile)
        #expect(scratch.placement().effectiveEnvironment["KEYCHAIN_VAULT_SECRET_ID_FILE"] == "/run/credentials/app/secret-id")
    }
}
