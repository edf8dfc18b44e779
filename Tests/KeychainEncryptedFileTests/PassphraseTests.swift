import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// Unlocking: wrong and changed passphrases, passphrase sources, settings, the keyring cache.
@Suite("file backend: passphrase and unlocking")
struct PassphraseTests {
    @Test func aWrongPassphraseIsAuthFailedAndChangesNothing() throws {
        let store = try TemporaryStore()
        try store.backend(passphrase: "right").add(genericItem("svc", "acct", "s"))
        let wrong = store.backend(passphrase: "wrong")
        let search = keychainError { _ = try storedSecret(wrong, "svc", "acct") }
        #expect(search?.status == errSecAuthFailed)
        #expect(search?.message.contains("does not unlock") == true, "\(String(describing: search))")
        #expect(search?.message.contains(store.directory) == true)
        let add = keychainError { try wrong.add(genericItem("svc", "other", "x")) }
        #expect(add?.status == errSecAuthFailed)
        #expect(store.itemFiles().count == 1)
        #expect(try storedSecret(store.backend(passphrase: "right"), "svc", "acct") == Data("s".utf8))
    }

    @Test func changingThePassphraseRewrapsOnlyTheKey() throws {
        let store = try TemporaryStore()
        let backend = store.backend(passphrase: "old passphrase")
        try backend.add(genericItem("svc", "acct", "s"))
        let itemBytes = try store.itemFiles().map { try store.contents($0) }

        let refused = keychainError {
            try backend.changePassphrase(from: SecretBytes(Data("not it".utf8)), to: SecretBytes(Data("x".utf8)))
        }
        #expect(refused?.status == errSecAuthFailed)
        #expect(try storedSecret(store.backend(passphrase: "old passphrase"), "svc", "acct") == Data("s".utf8))

        try backend.changePassphrase(to: SecretBytes(Data("new passphrase".utf8)))
        #expect(try store.itemFiles().map { try store.contents($0) } == itemBytes, "item files were rewritten")
        #expect(keychainError { _ = try storedSecret(store.backend(passphrase: "old passphrase"), "svc", "acct") }?.status == errSecAuthFailed)
        #expect(try storedSecret(store.backend(passphrase: "new passphrase"), "svc", "acct") == Data("s".utf8))
        #expect(store.files().filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func changingThePassphraseOfNoStoreSaysSo() throws {
        let store = try TemporaryStore()
        let error = keychainError { try store.backend().changePassphrase(to: SecretBytes(Data("x".utf8))) }
        #expect(error?.status == errSecNoSuchKeychain)
    }

    @Test func aMissingPassphraseFileIsNamedWithItsVariable() throws {
        let store = try TemporaryStore()
        let file = store.root + "/passphrase"
        try store.backend(passphrase: "some passphrase").add(genericItem("svc", "acct", "s"))
        let missing = EncryptedFileBackend(settings: FileStoreSettings(directory: store.directory, passphrase: .file(path: file + "-gone"),
                                                                       cacheLifetime: 0, kdf: .minimum))
        let error = keychainError { _ = try storedSecret(missing, "svc", "acct") }
        #expect(error?.message.contains("KEYCHAIN_FILE_PASSPHRASE_FILE") == true, "\(String(describing: error))")
    }

    /// The documented rule (docs/file.md): a passphrase file loses one trailing line ending,
    /// `\n`, `\r\n` or a lone `\r`; `KEYCHAIN_FILE_PASSPHRASE` is taken exactly as it is.
    @Test(arguments: ["\n", "\r\n", "\r"])
    func aPassphraseFileLosesOneLineEndingAndTheVariableNothing(_ ending: String) throws {
        let store = try TemporaryStore()
        let file = store.root + "/passphrase"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("line ending\(ending)".utf8)))
        let fromFile = EncryptedFileBackend(settings: FileStoreSettings(directory: store.directory, passphrase: .file(path: file),
                                                                        cacheLifetime: 0, kdf: .minimum))
        try fromFile.add(genericItem("svc", "acct", "s"))
        #expect(try storedSecret(store.backend(passphrase: "line ending"), "svc", "acct") == Data("s".utf8))
        let exact = keychainError { _ = try storedSecret(store.backend(passphrase: "line ending\(ending)"), "svc", "acct") }
        #expect(exact?.status == errSecAuthFailed, "the variable's value lost its line ending too")
    }

    @Test func emptyPassphrasesAreRefused() throws {
        let store = try TemporaryStore()
        let error = keychainError { try store.backend(passphrase: "").add(genericItem("svc", "acct", "s")) }
        #expect(error?.status == errSecAuthFailed)
        #expect(error?.message.contains("empty") == true)
        #expect(!FileManager.default.fileExists(atPath: store.directory + "/store-header"))
    }

    @Test func kdfSettingsBelowTheMinimumAreRefusedForNewStores() throws {
        let store = try TemporaryStore()
        let weak = EncryptedFileBackend(settings: FileStoreSettings(
            directory: store.directory, passphrase: .given(SecretBytes(Data("p".utf8))), cacheLifetime: 0,
            kdf: KDFParameters(operations: 1, memoryBytes: 8 << 20)))
        let error = keychainError { try weak.add(genericItem("svc", "acct", "s")) }
        #expect(error?.status == errSecParam)
        #expect(!FileManager.default.fileExists(atPath: store.directory + "/store-header"))
        #expect(KDFParameters.default.isAcceptable && KDFParameters.minimum.isAcceptable)
        #expect(KDFParameters.default.memoryBytes >= KDFParameters.minimum.memoryBytes)
    }

    @Test func withoutAPassphraseSourceTheBackendIsUnavailableAndSaysHowToFixIt() throws {
        let store = try TemporaryStore()
        let environment = ["KEYCHAIN_FILE_DIR": store.directory]
        let settings = try FileStoreSettings.fromEnvironment(environment)
        guard settings.passphrase == nil else {
            try Test.cancel("this process has a terminal to prompt on, so a passphrase source exists")
        }
        let backend = EncryptedFileBackend(settings: settings)
        guard case .unavailable(let reason) = backend.availability() else {
            Issue.record("available without any passphrase source")
            return
        }
        #expect(reason.status == errSecNotAvailable)
        for hint in ["KEYCHAIN_FILE_PASSPHRASE_FILE", "KEYCHAIN_FILE_PASSPHRASE", "terminal"] {
            #expect(reason.message.contains(hint), "the reason does not mention \(hint): \(reason.message)")
        }
    }

    @Test func settingsComeFromTheEnvironment() throws {
        let explicit = try FileStoreSettings.fromEnvironment([
            "KEYCHAIN_FILE_DIR": "/somewhere/store//", "KEYCHAIN_FILE_PASSPHRASE": "p", "KEYCHAIN_FILE_CACHE_SECONDS": "0",
        ])
        #expect(explicit.directory == "/somewhere/store")
        #expect(explicit.cacheLifetime == 0)
        #expect(explicit.passphrase?.summary == "KEYCHAIN_FILE_PASSPHRASE")

        let defaults = try FileStoreSettings.fromEnvironment(["XDG_DATA_HOME": "/data", "KEYCHAIN_FILE_PASSPHRASE_FILE": "/run/credentials/x"])
        #expect(defaults.directory == "/data/linux-keychain")
        #expect(defaults.cacheLifetime == FileStoreSettings.defaultCacheLifetime)
        #expect(defaults.passphrase?.summary.contains("/run/credentials/x") == true)

        #expect(try FileStoreSettings.fromEnvironment(["HOME": "/home/u", "XDG_DATA_HOME": "relative"]).directory
                == "/home/u/.local/share/linux-keychain")

        #expect(try FileStoreSettings.fromEnvironment(["KEYCHAIN_FILE_LOCK_TIMEOUT": "2.5", "HOME": "/home/u"]).lockTimeout == 2.5)
        #expect(defaults.lockTimeout == FileStoreSettings.defaultLockTimeout)
        for (name, value) in [("KEYCHAIN_FILE_CACHE_SECONDS", "soon"), ("KEYCHAIN_FILE_CACHE_SECONDS", "-1"), ("KEYCHAIN_FILE_DIR", "relative/dir"),
                              ("KEYCHAIN_FILE_LOCK_TIMEOUT", "soon"), ("KEYCHAIN_FILE_LOCK_TIMEOUT", "-1"), ("KEYCHAIN_FILE_LOCK_TIMEOUT", "inf")] {
            #expect(throws: KeychainError.self, "\(name)=\(value) was accepted") {
                _ = try FileStoreSettings.fromEnvironment([name: value, "HOME": "/home/u"])
            }
        }
    }

    @Test func theCacheUnlocksOtherInstancesAndRejectsAForeignKey() throws {
        let keyring = try runTool("/bin/sh", ["-c", "keyctl show @u"])
        guard keyring.status == 0 else {
            try Test.cancel(Comment(rawValue: "the user keyring is not usable here (keyctl show @u: \(keyring.output)); the cache is then off by design"))
        }
        let store = try TemporaryStore()
        try store.backend(passphrase: "right", cacheLifetime: 60).add(genericItem("svc", "acct", "s"))
        let storeID = try store.contents("store-header")[39..<55]
        let description = "linux-keychain:file:" + storeID.map { String(format: "%02x", $0) }.joined()
        defer { _ = try? runTool("/bin/sh", ["-c", "keyctl unlink $(keyctl search @u user \(description)) @u"]) }

        // Unlocked: another instance (another process would do the same) needs no passphrase.
        #expect(try storedSecret(store.backend(passphrase: "not needed while cached", cacheLifetime: 60), "svc", "acct") == Data("s".utf8))
        let timeout = try runTool("/bin/sh", ["-c", "keyctl rdescribe $(keyctl search @u user \(description))"])
        #expect(timeout.status == 0, "the cached key is not in the user keyring: \(timeout.output)")

        // A planted key that is not this store's is ignored, and the passphrase is checked again.
        let planted = try runTool("/bin/sh", ["-c", "head -c 32 /dev/urandom | keyctl padd user \(description) @u"])
        #expect(planted.status == 0, Comment(rawValue: planted.output))
        let wrong = keychainError { _ = try storedSecret(store.backend(passphrase: "wrong", cacheLifetime: 60), "svc", "acct") }
        #expect(wrong?.status == errSecAuthFailed)
        #expect(try storedSecret(store.backend(passphrase: "right", cacheLifetime: 60), "svc", "acct") == Data("s".utf8))

        // With the cache disabled, the passphrase is always checked.
        let uncached = keychainError { _ = try storedSecret(store.backend(passphrase: "wrong", cacheLifetime: 0), "svc", "acct") }
        #expect(uncached?.status == errSecAuthFailed)
    }
}
