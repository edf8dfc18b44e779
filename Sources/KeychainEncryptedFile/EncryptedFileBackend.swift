public import FoundationEssentials
import Glibc
public import KeychainCore
import Synchronization

/// The `file` backend: a directory of item files, each sealed with XChaCha20-Poly1305 under a
/// random master key that is wrapped with an Argon2id key from the user's passphrase.
///
/// Every write is a temporary file, fsync, rename and directory fsync under the store lock, so
/// an item is always at its old or its new value. The passphrase is stretched once per unlock;
/// the master key then stays in guarded memory and, for other processes, in the kernel keyring
/// for `cacheLifetime` seconds. Thread-safe and multi-process-safe. Layout and guarantees:
/// docs/file.md.
public final class EncryptedFileBackend: KeychainBackend, ItemByItemReading, BatchAdding, Sendable {
    /// The name it is registered under: `file`.
    public static let backendName = "file"
    /// `file`.
    public var name: String { Self.backendName }

    private let configuration: Result<FileStoreSettings, KeychainError>
    // The unlocked keys. Their lock is also held while unlocking so that concurrent threads
    // wait for one Argon2id run instead of each starting their own.
    private let unlocked = Locked<StoreKeys?>(nil)
    // The store as last opened, reused while it is still current (`StoreSession`).
    // Its lock is never held across file operations.
    private let session = Locked<StoreSession?>(nil)

    /// A backend configured from the environment (`FileStoreSettings.fromEnvironment`).
    public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        do {
            self.init(settings: try FileStoreSettings.fromEnvironment(environment))
        } catch {
            let reason = (error as? KeychainError) ?? KeychainError.fileBackend(errSecParam, "\(error)")
            self.init(configuration: .failure(reason))
        }
    }

    /// A backend on the store that `settings` describe, configured in code instead of the environment.
    public convenience init(settings: FileStoreSettings) {
        self.init(configuration: .success(settings))
    }

    private init(configuration: Result<FileStoreSettings, KeychainError>) {
        self.configuration = configuration
    }

    // MARK: KeychainBackend

    /// True when the configured passphrase source is a terminal prompt, so that `auto` tries
    /// the file store before the kernel keyring only where a key source needs no person.
    public var unlockNeedsPrompt: Bool {
        (try? configuration.get().passphrase?.needsPrompt) ?? false
    }

    /// Available when a passphrase source is configured and the directory, if it exists, is
    /// safe to use. Never creates anything, prompts or runs the KDF.
    public func availability() -> BackendAvailability {
        do {
            let settings = try configuration.get()
            guard let source = settings.passphrase else {
                return .unavailable(.fileBackend(errSecNotAvailable, "No passphrase for the encrypted-file store is configured. \(PassphraseSource.howToSupply)"))
            }
            let state = try StoreDirectory.openTop(path: settings.directory, create: false) == nil ? "new store" : "store"
            return .available("\(state) in \(settings.directory), passphrase from \(source.summary), unlock cached for \(settings.cacheLifetime) s")
        } catch let error as KeychainError {
            return .unavailable(error)
        } catch {
            return .unavailable(.fileBackend(errSecNotAvailable, "\(error)"))
        }
    }

    /// Adds `item`; see `KeychainBackend.add(_:)`.
    public func add(_ item: KeychainItem) throws {
        try NameRules.refuseNUL(in: item)
        guard let files = try openStore(creatingIfMissing: true) else {
            // openStore creates what is missing, so this means the directory vanished meanwhile.
            throw KeychainError.fileBackend(errSecIO, "The keychain store directory could not be created or opened.")
        }
        try files.withWriteLock {
            guard try !files.contains(item.primaryKey) else {
                throw Self.duplicate(of: item.primaryKey)
            }
            try files.write(item)
        }
    }

    /// The refusal of an add whose primary key is taken.
    private static func duplicate(of key: PrimaryKey) -> KeychainError {
        .fileBackend(errSecDuplicateItem, "An item with \(key.readableName) already exists.")
    }

    /// Adds `items` under one lock, synced together (`ItemFiles.writeNew`); see `BatchAdding`.
    public func add(batch items: [KeychainItem]) -> [KeychainError?] {
        var results = [KeychainError?](repeating: nil, count: items.count)
        do {
            guard let files = try openStore(creatingIfMissing: true) else {
                throw KeychainError.fileBackend(errSecIO, "The keychain store directory could not be created or opened.")
            }
            try files.withWriteLock {
                var taken = Set<PrimaryKey>(), accepted: [Int] = [], sealed: [(location: ItemLocation, sealed: Data)] = []
                for (index, item) in items.enumerated() {
                    do {
                        try NameRules.refuseNUL(in: item)
                        guard try !taken.contains(item.primaryKey) && !files.contains(item.primaryKey) else {
                            throw Self.duplicate(of: item.primaryKey)
                        }
                        sealed.append((files.keys.location(of: item.primaryKey), try files.keys.sealedFile(for: item)))
                        taken.insert(item.primaryKey)
                        accepted.append(index)
                    } catch {
                        results[index] = .fileBackend(error)
                    }
                }
                for (index, error) in zip(accepted, files.writeNew(sealed)) {
                    if let error { results[index] = .fileBackend(error) }
                }
            }
        } catch {
            // The store could not be opened or locked: nothing was written.
            let reason = KeychainError.fileBackend(error)
            return results.map { $0 ?? reason }
        }
        return results
    }

    /// The items matching `query`; see `KeychainBackend.search(_:)`.
    ///
    /// A query for the secret alone of the one item its primary key names is answered from the
    /// kernel keyring when an earlier read cached it for the file there now (`ItemSecretCache`),
    /// without the lock; otherwise the files are read under the shared lock, and such a read
    /// fills the cache. Its result then carries only the primary-key attributes the query
    /// gave, which `ItemQuery.includeAttributes` allows.
    public func search(_ query: ItemQuery) throws -> [KeychainItem] {
        try NameRules.refuseNUL(in: query)
        if let cached = try cachedAnswer(query) { return cached }
        guard let files = try openStore(creatingIfMissing: false) else { return [] }
        let cacheable = Self.secretOnlyKey(query, caching: files.secretCache).map { files.keys.location(of: $0) }
        return try files.withReadLock {
            let found = ItemCollection(try files.items(matching: query)).search(query)
            // Under the lock, the file there is the one just read.
            if let location = cacheable, found.count == 1, let secret = found[0].secret, let identity = files.identity(of: location) {
                files.secretCache.store(secret, at: location, identity: identity)
            }
            return found
        }
    }

    /// The items matching `query`, and each item file that does not open named by its path in
    /// the store (`items/BUCKET/FILE`); see `ItemByItemReading`.
    public func searchItemByItem(_ query: ItemQuery) throws -> (readable: [KeychainItem], unreadable: [UnreadableEntry]) {
        try NameRules.refuseNUL(in: query)
        guard let files = try openStore(creatingIfMissing: false) else { return ([], []) }
        return try files.withReadLock {
            let found = try files.itemsAndDamagedFiles(matching: query)
            return (ItemCollection(found.items).search(query), found.damaged)
        }
    }

    /// The answer from the secret cache, on the session kept from an earlier call, or nil to
    /// read the files. The session's directory is checked as every call checks it; its header
    /// is not read, since the entry stands for one item file as it is now (`StoreSession`).
    /// The entry's name comes from `SecretCacheRoutes`, which keeps the hashing out of the way.
    private func cachedAnswer(_ query: ItemQuery) throws -> [KeychainItem]? {
        let settings = try configuration.get()
        guard let kept = session.withLock({ $0 }), let key = Self.secretOnlyKey(query, caching: kept.files.secretCache),
              kept.isSameDirectory(at: settings.directory) else { return nil }
        guard let entry = kept.secretCacheRoutes.entryName(for: key, in: kept.files),
              let secret = kept.files.secretCache.secret(entry: entry) else { return nil }
        return [KeychainItem(itemClass: query.itemClass, attributes: query.constraints, secret: secret)]
    }

    /// The primary key of a query the secret cache can answer: the secret alone of the one
    /// item it names, with no constraint beyond the primary key; nil otherwise or when the
    /// cache is off.
    private static func secretOnlyKey(_ query: ItemQuery, caching cache: ItemSecretCache) -> PrimaryKey? {
        guard cache.lifetime > 0, query.includeSecrets, !query.includeAttributes, let key = query.onlyMatchingPrimaryKey,
              query.constraints.values.keys.allSatisfy(query.itemClass.primaryKeyAttributes.contains) else { return nil }
        return key
    }

    /// Rewrites each matched item in place; items whose primary key changes move all-or-nothing
    /// (`ItemFiles.apply`).
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws -> Int {
        try NameRules.refuseNUL(in: query, changes)
        guard let files = try openStore(creatingIfMissing: false) else { return 0 }
        return try files.withWriteLock {
            let matched = try files.items(matching: query)
            guard !matched.isEmpty else { return 0 }
            let plan = try UpdatePlan(matched: matched, changes: changes)
            for key in plan.keysNeedingVacancy where try files.contains(key) {
                throw KeychainError.fileBackend(errSecDuplicateItem, "The update would collide with the item with \(key.readableName).")
            }
            try files.apply(plan)
            return plan.changes.count
        }
    }

    /// Deletes the items matching `query`; see `KeychainBackend.delete(_:)`.
    public func delete(_ query: ItemQuery) throws -> Int {
        try NameRules.refuseNUL(in: query)
        guard let files = try openStore(creatingIfMissing: false) else { return 0 }
        return try files.withWriteLock {
            let doomed = try files.items(matching: query)
            for item in doomed { try files.remove(item.primaryKey) }
            return doomed.count
        }
    }

    // MARK: Passphrase

    /// Re-wraps the master key under `newPassphrase`, with a fresh salt and the current KDF
    /// settings. Items are untouched, so this is instant and cannot damage them; the header is
    /// replaced atomically, so a crash leaves either passphrase working, never neither.
    ///
    /// `currentPassphrase` defaults to the configured source. It is always checked against the
    /// header, even while the key is cached: knowing the passphrase is what authorizes the change.
    public func changePassphrase(from currentPassphrase: SecretBytes? = nil, to newPassphrase: SecretBytes) throws {
        let settings = try configuration.get()
        guard !newPassphrase.isEmpty else {
            throw KeychainError.fileBackend(errSecParam, "The new passphrase is empty; choose a real one.")
        }
        guard let top = try StoreDirectory.openTop(path: settings.directory, create: false, lockTimeout: settings.lockTimeout),
              try top.read(StoreHeader.fileName, limit: StoreHeader.size) != nil else {
            throw KeychainError.fileBackend(errSecNoSuchKeychain, "There is no keychain store in \(settings.directory) yet; nothing to change.")
        }
        let current = try currentPassphrase ?? passphraseSource(settings).obtain(forNewStoreAt: nil, existingStorePath: settings.directory)
        try top.withExclusiveLock {
            guard let header = try readHeader(top) else {
                throw KeychainError.fileBackend(errSecNoSuchKeychain, "The keychain store in \(settings.directory) disappeared.")
            }
            guard let masterKey = try header.unwrapMasterKey(with: current) else { throw wrongPassphrase(settings) }
            let rewrapped = try StoreHeader(wrapping: masterKey, storeID: header.storeID, passphrase: newPassphrase, kdf: settings.kdf)
            try top.removeStaleTemporaries()
            try top.writeAtomically(StoreHeader.fileName, rewrapped.encoded)
        }
    }

    // MARK: Unlocking

    /// The store's item files with unlocked keys, or nil when there is no store and
    /// `creatingIfMissing` is false (then nothing is created and nothing asked).
    ///
    /// Reuses the session of an earlier call while the store at the path is still the same
    /// (`StoreSession.isCurrent`); otherwise opens it in full and keeps the result.
    private func openStore(creatingIfMissing: Bool) throws -> ItemFiles? {
        let settings = try configuration.get()
        if let kept = session.withLock({ $0 }), kept.isCurrent(at: settings.directory) { return kept.files }
        let opened = try openStoreFully(settings, creatingIfMissing: creatingIfMissing)
        let replacement = try opened.map { try StoreSession(files: $0.files, header: $0.header) }
        session.withLock { $0 = replacement }
        return opened?.files
    }

    /// Opens the directory, reads the header and unlocks (or creates) the store; also returns
    /// the header's bytes, for `StoreSession`.
    private func openStoreFully(_ settings: FileStoreSettings, creatingIfMissing: Bool) throws -> (files: ItemFiles, header: Data)? {
        guard let top = try StoreDirectory.openTop(path: settings.directory, create: creatingIfMissing, lockTimeout: settings.lockTimeout) else { return nil }
        if let (header, bytes) = try readHeaderWithBytes(top) {
            return (ItemFiles(top: top, keys: try unlock(header, settings), cacheLifetime: settings.cacheLifetime), bytes)
        }
        try refuseOrphanedItems(top)
        guard creatingIfMissing else { return nil }
        let (keys, bytes) = try create(top, settings)
        return (ItemFiles(top: top, keys: keys, cacheLifetime: settings.cacheLifetime), bytes)
    }

    private func readHeader(_ top: StoreDirectory) throws -> StoreHeader? {
        try readHeaderWithBytes(top)?.header
    }

    private func readHeaderWithBytes(_ top: StoreDirectory) throws -> (header: StoreHeader, bytes: Data)? {
        guard let contents = try top.read(StoreHeader.fileName, limit: StoreHeader.size) else { return nil }
        return (try StoreHeader(parsing: contents, path: "\(top.path)/\(StoreHeader.fileName)"), contents)
    }

    private func refuseOrphanedItems(_ top: StoreDirectory) throws {
        if try ItemFiles.exist(in: top) {
            throw KeychainError.damagedFile("\(top.path)/\(StoreHeader.fileName)",
                "it is missing while item files exist; without it they cannot be opened. Restore it from a backup")
        }
    }

    /// Makes a new store: a random master key and store id, wrapped under the passphrase.
    /// The passphrase is asked before taking the lock (a prompt must not block other
    /// processes); under the lock, a store another process created meanwhile is used instead.
    /// Returns the keys with the bytes of the header they belong to.
    private func create(_ top: StoreDirectory, _ settings: FileStoreSettings) throws -> (keys: StoreKeys, header: Data) {
        let passphrase = try passphraseSource(settings).obtain(forNewStoreAt: settings.directory, existingStorePath: settings.directory)
        return try top.withExclusiveLock {
            if let (header, bytes) = try readHeaderWithBytes(top) { return (try unlock(header, settings, passphrase: passphrase), bytes) }
            try refuseOrphanedItems(top)
            let masterKey = try GuardedBytes(randomCount: Sodium.keyBytes)
            let storeID = Sodium.randomData(StoreHeader.storeIDBytes)
            let header = try StoreHeader(wrapping: masterKey, storeID: storeID, passphrase: passphrase, kdf: settings.kdf)
            try top.removeStaleTemporaries()
            let bytes = header.encoded
            try top.writeAtomically(StoreHeader.fileName, bytes)
            return (try remember(masterKey, header, settings), bytes)
        }
    }

    /// The keys for `header`: from this process's memory, else from the kernel keyring cache
    /// (checked against the header), else by unwrapping with the passphrase.
    private func unlock(_ header: StoreHeader, _ settings: FileStoreSettings, passphrase: SecretBytes? = nil) throws -> StoreKeys {
        try unlocked.withLock { unlocked in
            if let keys = unlocked, keys.storeID == header.storeID, header.matches(keys.masterKey) { return keys }
            let cache = MasterKeyCache(lifetime: settings.cacheLifetime)
            if let cached = cache.load(storeID: header.storeID) {
                if header.matches(cached) { return try remember(cached, header, in: &unlocked) }
                cache.forget(storeID: header.storeID)
            }
            let passphrase = try passphrase ?? passphraseSource(settings).obtain(forNewStoreAt: nil, existingStorePath: settings.directory)
            guard let masterKey = try header.unwrapMasterKey(with: passphrase) else { throw wrongPassphrase(settings) }
            let keys = try remember(masterKey, header, in: &unlocked)
            cache.store(masterKey, storeID: header.storeID)
            return keys
        }
    }

    private func remember(_ masterKey: GuardedBytes, _ header: StoreHeader, _ settings: FileStoreSettings) throws -> StoreKeys {
        let keys = try unlocked.withLock { try remember(masterKey, header, in: &$0) }
        MasterKeyCache(lifetime: settings.cacheLifetime).store(masterKey, storeID: header.storeID)
        return keys
    }

    /// Called with `unlocked`'s lock held, on its value.
    private func remember(_ masterKey: GuardedBytes, _ header: StoreHeader, in unlocked: inout StoreKeys?) throws -> StoreKeys {
        let keys = try StoreKeys(masterKey: masterKey, storeID: header.storeID)
        unlocked = keys
        return keys
    }

    private func passphraseSource(_ settings: FileStoreSettings) throws -> PassphraseSource {
        guard let source = settings.passphrase else {
            throw KeychainError.fileBackend(errSecInteractionNotAllowed,
                "The keychain store in \(settings.directory) needs its passphrase, and none is configured. \(PassphraseSource.howToSupply)")
        }
        return source
    }

    private func wrongPassphrase(_ settings: FileStoreSettings) -> KeychainError {
        .fileBackend(errSecAuthFailed,
            "The passphrase from \(settings.passphrase?.summary ?? "the caller") does not unlock the keychain store in \(settings.directory) (or its header was altered). Check the passphrase.")
    }
}
