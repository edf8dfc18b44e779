import CSecretService
import FoundationEssentials
import Glibc
import KeychainCore

/// A connection `csecretservice_service_open` made, closed when this goes away.
///
/// Isolated to the libsecret thread, its closing included: dropped anywhere, it is closed
/// there (`csecretservice_service_close`), which frees its transfer session on that thread.
@LibsecretActor
final class ServiceHandle {
    let pointer: UnsafeMutableRawPointer

    init?(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    isolated deinit { csecretservice_service_close(pointer) }
}

/// The calls one job makes on one prepared collection: libsecret's API in Swift terms, with
/// every GError turned into a `KeychainError`. Lives only inside a job on the libsecret thread.
@LibsecretActor
struct LibsecretSession {
    let service: ServiceHandle
    /// The collection's D-Bus object path.
    let collectionPath: String
    /// The collection's lock state, when it was looked up in this same job and asked with it
    /// (`SecretServiceConnection.prepare(_:askingLockState:)`); nil otherwise.
    let lockStateAtLookUp: Bool?
    /// The provider the connection keeps to; every request goes to its unique bus name.
    let provider: SecretServiceProvider
    let call: LibsecretCall
    /// How the collection is named in messages.
    let collectionName: String
    let timeoutSeconds: Double
    /// What earlier searches on this collection found, kept by the connection.
    let searchPaths: SearchPathCache

    /// Runs one shim function and throws its error, if it set one.
    func checked<Value>(_ name: String, _ body: (UnsafeMutablePointer<CSecretServiceError>) -> Value) throws -> Value {
        var failure = CSecretServiceError()
        let value = body(&failure)
        if failure.kind != CSECRETSERVICE_ERROR_NONE { throw explained(failure, call: name) }
        return value
    }

    /// `failure` as a keychain error; a lost connection, no reply or an unknown name is
    /// reported as the provider going away when it no longer owns org.freedesktop.secrets.
    func explained(_ failure: CSecretServiceError, call name: String) -> KeychainError {
        let error = SecretServiceErrors.from(failure, call: name, collection: collectionName, seconds: timeoutSeconds)
        // When the bus itself cannot be asked, the original error says it best.
        guard error.status == errSecNotAvailable,
              case .success(let now) = Result(catching: { try SecretServiceConnection.currentProvider(call) }),
              now?.uniqueName != provider.uniqueName
        else { return error }
        return SecretServiceErrors.providerGone(provider, during: name, now: now)
    }

    /// Object paths of the collection's items that carry all of `attributes`.
    func search(_ attributes: [String: String]) throws -> [String] {
        let paths = try withAttributeArrays(attributes) { keys, values, count in
            try checked("org.freedesktop.Secret.Collection.SearchItems") {
                csecretservice_collection_search(service.pointer, collectionPath, keys, values, count,
                                                 call.remainingMilliseconds, call.cancellable, $0)
            }
        }
        return recorded(taking: paths, for: attributes)
    }

    /// Object paths of every item in the collection (its Items property, asked now). A listing
    /// with nothing to search by asks this: KeePassXC answers a search without attributes with
    /// no item, where gnome-keyring answers it with every one.
    func allItems() throws -> [String] {
        let paths = try checked("org.freedesktop.DBus.Properties.Get(Collection.Items)") {
            csecretservice_collection_items(service.pointer, collectionPath, call.remainingMilliseconds,
                                            call.cancellable, $0)
        }
        return recorded(taking: paths, for: [:])
    }

    /// What `searchAhead` found: the search's paths, and what was asked with it.
    struct SearchAhead {
        let paths: [String]
        /// The item the same search found alone last time, read as asked, when this search
        /// found it alone again; nil otherwise, and the caller reads what the search found.
        let item: StoredItem?
        /// The collection's lock state, asked with a search that had no item to guess; nil
        /// when it was not asked or could not be read.
        let collectionIsLocked: Bool?
    }

    /// `search(attributes)`, and in the same round trip what the caller asks next: when that
    /// search found a single item last time, that item read as `what` says (which saves a wait
    /// on a repeated get); otherwise the collection's lock state (which saves one on a miss,
    /// where `requireUnlocked` would ask it after the search).
    ///
    /// The guess cannot give a wrong answer: the read is sent after the search on the same
    /// connection, so the provider reads the item after it found it (a path reused for another
    /// item meanwhile is what the search found, read now, as without the guess), and the caller
    /// still decides the match from the attributes read. A secret read for nothing is released
    /// with libsecret's wiping free, never copied here. The lock state is asked of the provider
    /// after the search, as `requireUnlocked` would ask it, just without waiting for the search.
    func searchAhead(_ attributes: [String: String], _ what: StoredItem.Read) throws -> SearchAhead {
        let guess = searchPaths.path(for: attributes)
        var item = CSecretServiceItem()
        defer { csecretservice_item_free(&item) }
        var locked: Int32 = -1
        let (request, callName) = Self.request(what)
        let paths = try withAttributeArrays(attributes) { keys, values, count in
            try checked("org.freedesktop.Secret.Collection.SearchItems + \(guess == nil ? "Get(Collection.Locked)" : callName)") {
                csecretservice_collection_search_ahead(service.pointer, collectionPath, keys, values, count, guess,
                                                       request, call.remainingMilliseconds, call.cancellable, &item,
                                                       &locked, $0)
            }
        }
        let found = recorded(taking: paths, for: attributes)
        let read = guess.flatMap { item.exists != 0 ? Self.storedItem($0, item, what) : nil }
        return SearchAhead(paths: found, item: read, collectionIsLocked: locked < 0 ? nil : locked != 0)
    }

    /// The paths of a search's result, which is freed here, after noting them in `searchPaths`.
    private func recorded(taking paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                          for attributes: [String: String]) -> [String] {
        var found: [String] = []
        if let paths {
            defer { csecretservice_strv_free(paths) }
            var index = 0
            while let path = paths[index] {
                found.append(String(cString: path))
                index += 1
            }
        }
        searchPaths.record(found, for: attributes)
        return found
    }

    /// Confirms with the provider, not a cached property, that the collection is unlocked.
    ///
    /// A search alone cannot tell an empty collection from a locked one, and an unlocked
    /// item proves its collection unlocked; so operations call this only when they found no
    /// unlocked item, which keeps the round trip off the path of a successful get or set.
    func requireUnlocked() throws {
        let locked = try checked("org.freedesktop.DBus.Properties.Get(Locked)") {
            csecretservice_collection_is_locked(service.pointer, collectionPath, call.remainingMilliseconds,
                                                call.cancellable, $0)
        }
        if locked != 0 { throw SecretServiceErrors.locked(collectionName) }
    }

    /// `requireUnlocked`, answered by the lock state the collection's look-up asked in this
    /// same job when it did (`lockStateAtLookUp`): for the availability check, which asks
    /// nothing else. Operations call `requireUnlocked`, after their search.
    func requireUnlockedAtLookUp() throws {
        guard let locked = lockStateAtLookUp else { return try requireUnlocked() }
        if locked { throw SecretServiceErrors.locked(collectionName) }
    }

    /// The items at `paths` as the provider reports them now, leaving out any deleted since
    /// the search found it, each with as much as `what` asks for (a secret is nil for a locked
    /// item). All requests go out at once, so this waits about one round trip however many paths.
    func readItems(_ paths: [String], _ what: StoredItem.Read) throws -> [StoredItem] {
        var items = [CSecretServiceItem](repeating: CSecretServiceItem(), count: paths.count)
        let (request, callName) = Self.request(what)
        try withCStrings(paths) { pathPointers in
            _ = try checked(callName) {
                csecretservice_items_read(service.pointer, pathPointers.baseAddress, paths.count, request,
                                          call.remainingMilliseconds, call.cancellable, &items, $0)
            }
        }
        defer {
            for index in items.indices { csecretservice_item_free(&items[index]) }
        }
        return zip(paths, items).compactMap { path, item in
            item.exists != 0 ? Self.storedItem(path, item, what) : nil
        }
    }

    /// The shim's request for `what`, and how it is named in errors.
    private static func request(_ what: StoredItem.Read) -> (CSecretServiceItemRead, String) {
        switch what {
        case .properties: return (CSECRETSERVICE_READ_PROPERTIES, "GetAll(Item)")
        case .propertiesAndSecrets:
            return (CSECRETSERVICE_READ_PROPERTIES_AND_SECRETS, "GetAll(Item) + org.freedesktop.Secret.Service.GetSecrets")
        case .attributesAndSecrets:
            return (CSECRETSERVICE_READ_ATTRIBUTES_AND_SECRETS,
                    "Get(Item.Attributes) + org.freedesktop.Secret.Service.GetSecrets")
        }
    }

    /// An existing item as the shim read it (`what`), its secret copied into memory we zero.
    private static func storedItem(_ path: String, _ item: CSecretServiceItem, _ what: StoredItem.Read) -> StoredItem {
        var attributes: [String: String] = [:]
        for index in 0..<item.attributes.count {
            guard let key = item.attributes.keys[index], let value = item.attributes.values[index] else { continue }
            attributes[String(cString: key)] = String(cString: value)
        }
        let secret = item.secret.map(Self.copySecret)
        // A secret handed out proves its item unlocked; without GetAll nothing else tells.
        let provesUnlocked = what == .attributesAndSecrets ? secret != nil : item.locked == 0
        return StoredItem(path: path, attributes: attributes, label: item.label.map { String(cString: $0) } ?? "",
                          isLocked: item.locked != 0, provesUnlocked: provesUnlocked, secret: secret)
    }

    /// The secrets of the items at `paths`, in the same order, in one round trip; nil for an
    /// item whose secret the provider did not hand out. Each is copied into memory we zero,
    /// after which libsecret's copy is released with its own wiping free.
    func loadSecrets(_ paths: [String]) throws -> [SecretBytes?] {
        var values = [UnsafeMutableRawPointer?](repeating: nil, count: paths.count)
        defer { values.forEach(csecretservice_value_unref) }
        try withCStrings(paths) { pathPointers in
            _ = try checked("org.freedesktop.Secret.Service.GetSecrets") {
                csecretservice_secrets_load(service.pointer, pathPointers.baseAddress, &values, paths.count,
                                            call.remainingMilliseconds, call.cancellable, $0)
            }
        }
        return values.map { $0.map(Self.copySecret) }
    }

    /// A SecretValue's bytes copied into memory we zero; libsecret's copy is left to its owner.
    private static func copySecret(_ value: UnsafeMutableRawPointer) -> SecretBytes {
        var length = 0
        let bytes = csecretservice_value_bytes(value, &length)
        return SecretBytes(count: length) { target in
            if let bytes, length > 0 { target.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: length)) }
        }
    }

    /// Creates an item with exactly `attributes`, `label` and `secret`. Throws
    /// `SecretServiceErrors.TransferSessionLost` when the provider lost the transfer session,
    /// which kwalletd 5 reports after it created the item without its secret.
    func createItem(attributes: [String: String], label: String, secret: SecretBytes) throws {
        let name = "org.freedesktop.Secret.Collection.CreateItem"
        var failure = CSecretServiceError()
        try withAttributeArrays(attributes) { keys, values, count in
            secret.withUnsafeBytes { bytes in
                _ = csecretservice_item_create(service.pointer, collectionPath, keys, values, count, label,
                                               bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                               provider.textKeepsNUL ? 1 : 0, call.remainingMilliseconds,
                                               call.cancellable, &failure)
            }
        }
        try throwIfFailed(failure, name)
    }

    /// Throws `SecretServiceErrors.TransferSessionLost` when the provider lost the transfer
    /// session (kwalletd 5), which leaves the item's secret as it was.
    func setSecret(_ secret: SecretBytes, at path: String) throws {
        let name = "org.freedesktop.Secret.Item.SetSecret"
        var failure = CSecretServiceError()
        secret.withUnsafeBytes { bytes in
            _ = csecretservice_item_set_secret(service.pointer, path, bytes.bindMemory(to: UInt8.self).baseAddress,
                                               bytes.count, provider.textKeepsNUL ? 1 : 0,
                                               call.remainingMilliseconds, call.cancellable, &failure)
        }
        try throwIfFailed(failure, name)
    }

    /// `failure` thrown, as `TransferSessionLost` when the provider lost the transfer session.
    private func throwIfFailed(_ failure: CSecretServiceError, _ name: String) throws {
        if failure.kind == CSECRETSERVICE_ERROR_SESSION_LOST {
            throw SecretServiceErrors.TransferSessionLost(error: explained(failure, call: name))
        }
        if failure.kind != CSECRETSERVICE_ERROR_NONE { throw explained(failure, call: name) }
    }

    /// Gives the item at `path`, whose attributes are `current`, the attributes `wanted`, sending
    /// only what the provider accepts (see `SecretServiceProvider.attributesToSend`).
    func setAttributes(_ wanted: [String: String], replacing current: [String: String], at path: String) throws {
        guard let sent = provider.attributesToSend(wanted, replacing: current) else { return }
        try withAttributeArrays(sent) { keys, values, count in
            _ = try checked("org.freedesktop.DBus.Properties.Set(Attributes)") {
                csecretservice_item_set_attributes(service.pointer, path, keys, values, count,
                                                   call.remainingMilliseconds, call.cancellable, $0)
            }
        }
    }

    /// What became of the two parts of `setAttributesAndSecret`: each part's error, nil for
    /// a part the provider took.
    struct PairedWrite {
        var attributes: KeychainError?
        var secret: KeychainError?
        /// Whether the secret was refused because the provider lost the transfer session.
        var secretLostSession = false
    }

    /// Gives the item at `path` the attributes `wanted` (as `setAttributes` does) and `secret`,
    /// sending the two requests at once, the attributes first, so the caller waits for one
    /// round trip instead of two. The provider may take one part and refuse the other: the
    /// result says which.
    func setAttributesAndSecret(_ wanted: [String: String], replacing current: [String: String],
                                secret: SecretBytes, at path: String) throws -> PairedWrite {
        guard let sent = provider.attributesToSend(wanted, replacing: current) else {
            do {
                try setSecret(secret, at: path)
                return PairedWrite()
            } catch let lost as SecretServiceErrors.TransferSessionLost {
                return PairedWrite(secret: lost.error, secretLostSession: true)
            } catch let failure as KeychainError {
                return PairedWrite(secret: failure)
            }
        }
        var attributesFailure = CSecretServiceError()
        var secretFailure = CSecretServiceError()
        try withAttributeArrays(sent) { keys, values, count in
            secret.withUnsafeBytes { bytes in
                _ = csecretservice_item_set_attributes_and_secret(
                    service.pointer, path, keys, values, count, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                    provider.textKeepsNUL ? 1 : 0, call.remainingMilliseconds, call.cancellable,
                    &attributesFailure, &secretFailure)
            }
        }
        func error(_ failure: CSecretServiceError, _ call: String) -> KeychainError? {
            failure.kind == CSECRETSERVICE_ERROR_NONE ? nil : explained(failure, call: call)
        }
        return PairedWrite(attributes: error(attributesFailure, "org.freedesktop.DBus.Properties.Set(Attributes)"),
                           secret: error(secretFailure, "org.freedesktop.Secret.Item.SetSecret"),
                           secretLostSession: secretFailure.kind == CSECRETSERVICE_ERROR_SESSION_LOST)
    }

    func setLabel(_ label: String, at path: String) throws {
        _ = try checked("org.freedesktop.DBus.Properties.Set(Label)") {
            csecretservice_item_set_label(service.pointer, path, label, call.remainingMilliseconds,
                                          call.cancellable, $0)
        }
    }

    /// Deletes the item; false when it was already gone.
    func delete(_ item: StoredItem) throws -> Bool { try delete(at: item.path) }

    /// Deletes the item at `path`; false when it was already gone.
    func delete(at path: String) throws -> Bool {
        var failure = CSecretServiceError()
        _ = csecretservice_item_delete(service.pointer, path, call.remainingMilliseconds, call.cancellable, &failure)
        if failure.kind == CSECRETSERVICE_ERROR_NONE || failure.kind == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT {
            searchPaths.forget(path)
        }
        if failure.kind == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT { return false }
        if failure.kind != CSECRETSERVICE_ERROR_NONE {
            throw explained(failure, call: "org.freedesktop.Secret.Item.Delete")
        }
        return true
    }

    /// Passes `attributes` to C as two parallel arrays of C strings, valid during `body`.
    func withAttributeArrays<Result>(
        _ attributes: [String: String],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int) throws -> Result
    ) throws -> Result {
        let pairs = attributes.sorted { $0.key < $1.key }
        return try withCStrings(pairs.map(\.key)) { keys in
            try withCStrings(pairs.map(\.value)) { values in
                try body(keys.baseAddress, values.baseAddress, pairs.count)
            }
        }
    }

    /// Passes `strings` to C as an array of C strings, valid during `body`.
    private func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) throws -> Result
    ) throws -> Result {
        let copies = strings.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        guard !copies.contains(where: { $0 == nil }) else {
            throw KeychainError(errSecAllocate, "Out of memory while passing strings to libsecret.",
                                backend: SecretServiceErrors.backend)
        }
        return try copies.withUnsafeBufferPointer(body)
    }
}

/// One Secret Service item as read from the provider: its path, properties and, if it was
/// asked for and handed out, its secret.
struct StoredItem {
    /// How much of an item `LibsecretSession.readItems` asks for.
    enum Read {
        /// Attributes, label and lock state (one `Properties.GetAll` per item).
        case properties
        /// The properties and the secrets.
        case propertiesAndSecrets
        /// Only the attributes (one `Properties.Get` per item) and the secrets: the label is
        /// left empty and the lock state unknown, for a caller that reads neither.
        case attributesAndSecrets
    }

    let path: String
    /// All its attributes, ours and anyone else's.
    let attributes: [String: String]
    /// Empty when it was not read (`Read.attributesAndSecrets`).
    let label: String
    /// Whether the provider said the item is locked; false when the lock state was not read.
    let isLocked: Bool
    /// Whether the provider showed the item unlocked, by its lock state or by handing out its
    /// secret, which proves its collection unlocked too.
    let provesUnlocked: Bool
    let secret: SecretBytes?
}
