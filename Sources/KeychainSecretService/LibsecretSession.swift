import CSecretService
import Foundation
import KeychainCore

/// A GObject reference held by Swift and released when this goes away.
///
/// Only ever created, used and released on the libsecret worker thread.
final class GObjectReference {
    let pointer: UnsafeMutableRawPointer

    init?(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { csecretservice_object_unref(pointer) }

    /// The D-Bus object path of the proxy.
    var objectPath: String { String(cString: csecretservice_object_path(pointer)) }
}

/// The calls one job makes on one prepared collection: libsecret's API in Swift terms, with
/// every GError turned into a `KeychainError`. Lives only inside a job on the worker thread.
struct LibsecretSession {
    let service: GObjectReference
    let collection: GObjectReference
    let call: LibsecretCall
    /// How the collection is named in messages.
    let collectionName: String
    let timeoutSeconds: Double

    /// Runs one shim function and throws its error, if it set one.
    func checked<Value>(_ name: String, _ body: (UnsafeMutablePointer<CSecretServiceError>) -> Value) throws -> Value {
        var failure = CSecretServiceError()
        let value = body(&failure)
        if failure.kind != CSECRETSERVICE_ERROR_NONE {
            throw SecretServiceErrors.from(failure, call: name, collection: collectionName, seconds: timeoutSeconds)
        }
        return value
    }

    /// Object paths of the collection's items that carry all of `attributes`.
    func search(_ attributes: [String: String]) throws -> [String] {
        let paths = try withAttributeArrays(attributes) { keys, values, count in
            try checked("secret_collection_search_for_dbus_paths_sync") {
                csecretservice_collection_search(collection.pointer, keys, values, count, call.cancellable, $0)
            }
        }
        guard let paths else { return [] }
        defer { csecretservice_strv_free(paths) }
        var found: [String] = []
        var index = 0
        while let path = paths[index] {
            found.append(String(cString: path))
            index += 1
        }
        return found
    }

    /// The item at `path`, or nil when it was deleted since the search found it.
    func openItem(_ path: String) throws -> LibsecretItem? {
        var failure = CSecretServiceError()
        let pointer = csecretservice_item_open(service.pointer, path, Int32(timeoutSeconds * 1000), call.cancellable,
                                               &failure)
        if failure.kind == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT { return nil }
        if failure.kind != CSECRETSERVICE_ERROR_NONE {
            throw SecretServiceErrors.from(failure, call: "secret_item_new_for_dbus_path_sync",
                                           collection: collectionName, seconds: timeoutSeconds)
        }
        guard let reference = GObjectReference(pointer) else { return nil }
        return LibsecretItem(reference: reference, session: self)
    }

    /// Creates an item with exactly `attributes`, `label` and `secret`.
    func createItem(attributes: [String: String], label: String, secret: SecretBytes) throws {
        try withAttributeArrays(attributes) { keys, values, count in
            try secret.withUnsafeBytes { bytes in
                _ = try checked("secret_item_create_sync") {
                    csecretservice_item_create(collection.pointer, keys, values, count, label,
                                               bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count,
                                               call.cancellable, $0)
                }
            }
        }
    }

    /// Loads the secrets of `items` in one round trip.
    func loadSecrets(_ items: [LibsecretItem]) throws {
        let pointers: [UnsafeMutableRawPointer?] = items.map { $0.reference.pointer }
        _ = try pointers.withUnsafeBufferPointer { buffer in
            try checked("secret_item_load_secrets_sync") {
                csecretservice_items_load_secrets(buffer.baseAddress, buffer.count, call.cancellable, $0)
            }
        }
        withExtendedLifetime(items) {}
    }

    /// Passes `attributes` to C as two parallel arrays of C strings, valid during `body`.
    func withAttributeArrays<Result>(
        _ attributes: [String: String],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int) throws -> Result
    ) throws -> Result {
        let pairs = attributes.sorted { $0.key < $1.key }
        let keys = pairs.map { UnsafePointer(strdup($0.key)) }
        let values = pairs.map { UnsafePointer(strdup($0.value)) }
        defer {
            for pointer in keys + values { free(UnsafeMutableRawPointer(mutating: pointer)) }
        }
        guard !keys.contains(where: { $0 == nil }), !values.contains(where: { $0 == nil }) else {
            throw KeychainError(errSecAllocate, "Out of memory while passing attributes to libsecret.",
                                backend: SecretServiceErrors.backend)
        }
        return try keys.withUnsafeBufferPointer { keyBuffer in
            try values.withUnsafeBufferPointer { valueBuffer in
                try body(keyBuffer.baseAddress, valueBuffer.baseAddress, pairs.count)
            }
        }
    }
}

/// One Secret Service item, as opened by a session.
struct LibsecretItem {
    let reference: GObjectReference
    let session: LibsecretSession

    var path: String { reference.objectPath }

    /// All of the item's attributes, ours and anyone else's, as of when it was opened.
    func attributes() throws -> [String: String] {
        var strings = CSecretServiceStrings()
        guard csecretservice_item_attributes(reference.pointer, &strings) == 0 else {
            throw KeychainError(errSecAllocate, "Out of memory while reading an item's attributes.",
                                backend: SecretServiceErrors.backend, failedCall: "secret_item_get_attributes")
        }
        defer { csecretservice_strings_free(&strings) }
        var attributes: [String: String] = [:]
        for index in 0..<strings.count {
            guard let key = strings.keys[index], let value = strings.values[index] else { continue }
            attributes[String(cString: key)] = String(cString: value)
        }
        return attributes
    }

    var label: String {
        guard let text = csecretservice_item_label(reference.pointer) else { return "" }
        defer { csecretservice_free(text) }
        return String(cString: text)
    }

    var isLocked: Bool { csecretservice_item_is_locked(reference.pointer) != 0 }

    /// The secret loaded by `LibsecretSession.loadSecrets`, copied into memory we zero, after
    /// which libsecret's copy is released with its own wiping free.
    func loadedSecret() -> SecretBytes? {
        var bytes: UnsafePointer<UInt8>?
        var length = 0
        guard let value = csecretservice_item_secret(reference.pointer, &bytes, &length) else { return nil }
        defer { csecretservice_value_unref(value) }
        return SecretBytes(count: length) { target in
            if let bytes, length > 0 { target.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: length)) }
        }
    }

    func setSecret(_ secret: SecretBytes) throws {
        try secret.withUnsafeBytes { bytes in
            _ = try session.checked("secret_item_set_secret_sync") {
                csecretservice_item_set_secret(reference.pointer, bytes.bindMemory(to: UInt8.self).baseAddress,
                                               bytes.count, session.call.cancellable, $0)
            }
        }
    }

    func setAttributes(_ attributes: [String: String]) throws {
        try session.withAttributeArrays(attributes) { keys, values, count in
            _ = try session.checked("secret_item_set_attributes_sync") {
                csecretservice_item_set_attributes(reference.pointer, keys, values, count, session.call.cancellable, $0)
            }
        }
    }

    func setLabel(_ label: String) throws {
        _ = try session.checked("secret_item_set_label_sync") {
            csecretservice_item_set_label(reference.pointer, label, session.call.cancellable, $0)
        }
    }

    /// Deletes the item; false when it was already gone.
    func delete() throws -> Bool {
        var failure = CSecretServiceError()
        _ = csecretservice_item_delete(reference.pointer, session.call.cancellable, &failure)
        if failure.kind == CSECRETSERVICE_ERROR_NO_SUCH_OBJECT { return false }
        if failure.kind != CSECRETSERVICE_ERROR_NONE {
            throw SecretServiceErrors.from(failure, call: "secret_item_delete_sync",
                                           collection: session.collectionName, seconds: session.timeoutSeconds)
        }
        return true
    }
}
