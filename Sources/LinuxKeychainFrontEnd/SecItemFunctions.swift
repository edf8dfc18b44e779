public import Foundation
public import KeychainCore
import KeychainEntryPoints

// Apple's four SecItem functions and SecCopyErrorMessageString, with Apple's signatures.
// Each parses its dictionaries once (SecItemParser), runs through KeychainOperations on the
// backend in use, and shapes the result (SecItemResultBuilder). The status is the only
// outcome, as on Apple platforms; the full error (backend, failing call, what to do) is kept
// in `KeychainLastError.current`. They never trap, whatever the dictionaries hold.

/// Adds an item. With a `kSecReturn*` key, `result` receives the added item in that form.
/// `errSecDuplicateItem` if an item with the same primary key exists.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(result) {
        if SecIdentitySearch.isIdentity(attributes) {
            try SecIdentitySearch.add(attributes)
            return nil
        }
        let addition = try SecItemParser.addition(attributes)
        let operations = try KeychainOperations.current()
        let storedKey = try operations.add(addition.item)
        guard !addition.returns.isEmpty else { return nil }
        let stored = try operations.search(ItemQuery(primaryKey: storedKey,
                                                     includeSecrets: addition.returns.needsSecrets(of: storedKey.itemClass)))
        return try SecItemResultBuilder.result(for: stored, returns: addition.returns, limit: .one)
    }
}

/// Finds items; `kSecMatchLimitOne` unless the query says otherwise.
/// `errSecItemNotFound` when nothing matches.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCall.run(result) {
        if SecIdentitySearch.isIdentity(query) {
            let search = try SecItemParser.search(SecIdentitySearch.asCertificates(query), for: .copyMatching)
            if search.matchesNothing { throw KeychainError.notFound() }
            let found = try SecIdentitySearch.identities(search, in: try KeychainOperations.current())
            return try SecIdentitySearch.result(for: found, returns: search.returns, limit: search.query.limit)
        }
        let search = try SecItemParser.search(query, for: .copyMatching)
        if search.matchesNothing { throw KeychainError.notFound() }
        // The reference's empty group then constrains the search to exactly the shared item,
        // which every program may read.
        let found = try KeychainOperations.current(scope: search.namesSharedItem ? .everything : .currentProgram)
            .search(search.query)
        return try SecItemResultBuilder.result(for: found, returns: search.returns, limit: search.query.limit)
    }
}

/// Changes every item matching `query`. `errSecItemNotFound` when nothing matches,
/// `errSecDuplicateItem` when the change would collide with another item.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCall.run(nil) {
        if SecIdentitySearch.isIdentity(query) {
            throw KeychainError(errSecUnimplemented, "An identity is updated as its certificate (kSecClassCertificate) or its key (kSecClassKey).")
        }
        let search = try SecItemParser.search(query, for: .updateQuery)
        let changes = try SecItemParser.changes(attributesToUpdate, for: search.query.itemClass)
        if search.matchesNothing { throw KeychainError.notFound() }
        if search.namesSharedItem { throw KeychainError.notFound(SecItemCall.sharedItemUnchanged) }
        try KeychainOperations.current().update(search.query, with: changes)
        return nil
    }
}

/// Deletes every item matching `query`. `errSecItemNotFound` when nothing matches.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCall.run(nil) {
        if SecIdentitySearch.isIdentity(query) {
            let search = try SecItemParser.search(SecIdentitySearch.asCertificates(query), for: .delete)
            if search.matchesNothing { throw KeychainError.notFound() }
            try SecIdentitySearch.delete(search, in: try KeychainOperations.current())
            return nil
        }
        let search = try SecItemParser.search(query, for: .delete)
        if search.matchesNothing { throw KeychainError.notFound() }
        if search.namesSharedItem { throw KeychainError.notFound(SecItemCall.sharedItemUnchanged) }
        try KeychainOperations.current().delete(search.query)
        return nil
    }
}

/// A sentence explaining `status`, for every status (unknown ones say their number).
/// For the details of the last failure, read `KeychainLastError.current`.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: keychainStatusMessage(status))
}

/// The error handling every SecItem function shares.
private enum SecItemCall {
    /// Why a reference to a shared item changes nothing (docs/placement.md).
    static let sharedItemUnchanged = """
        The reference names a shared item (one with no access group), which a program reads but never \
        changes or deletes; the operator manages it with the linux-keychain CLI.
        """

    static func run(_ result: UnsafeMutablePointer<CFTypeRef?>?, _ body: () throws -> CFTypeRef?) -> OSStatus {
        result?.pointee = nil
        do {
            let value = try body()
            result?.pointee = value
            return errSecSuccess
        } catch let error as KeychainError {
            KeychainLastError.record(error)
            return error.status
        } catch {
            let unexpected = KeychainError(errSecInternalComponent, "Unexpected error: \(type(of: error)).")
            KeychainLastError.record(unexpected)
            return unexpected.status
        }
    }
}
