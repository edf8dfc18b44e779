import Dispatch
public import Foundation
import KeychainCore

/// `Keychain`'s calls as `async` functions, reached through `keychain.async`:
///
///     let token = try await keychain.async.string(for: "alice")
///     try await keychain.async.set("s3cr3t", for: "alice")
///
/// Store calls block (D-Bus round trips, `fsync`, HTTP), so each runs on a dedicated queue and
/// the awaiting task resumes when it finishes; the cooperative thread pool never blocks. The
/// names and arguments are `Keychain`'s; see there for what each does.
public struct AsyncKeychain: Sendable {
    /// The keychain whose calls these are.
    public let keychain: Keychain

    /// The async view of `linux-keychain`.
    public init(_ keychain: Keychain) { self.keychain = keychain }

    /// `Keychain.data(for:)`, off the caller's thread.
    public func data(for account: String) async throws -> Data? {
        try await offloaded { try keychain.data(for: account) }
    }

    /// `Keychain.string(for:)`, off the caller's thread.
    public func string(for account: String) async throws -> String? {
        try await offloaded { try keychain.string(for: account) }
    }

    /// `Keychain.value(_:for:)`, off the caller's thread.
    public func value<Value: Decodable & Sendable>(_ type: Value.Type = Value.self, for account: String) async throws -> Value? {
        try await offloaded { try keychain.value(type, for: account) }
    }

    /// `Keychain.contains(_:)`, off the caller's thread.
    public func contains(_ account: String) async throws -> Bool {
        try await offloaded { try keychain.contains(account) }
    }

    /// `Keychain.attributes(for:)`, off the caller's thread.
    public func attributes(for account: String) async throws -> Keychain.Item? {
        try await offloaded { try keychain.attributes(for: account) }
    }

    /// `Keychain.allAccounts()`, off the caller's thread.
    public func allAccounts() async throws -> [String] {
        try await offloaded { try keychain.allAccounts() }
    }

    /// `Keychain.allItems()`, off the caller's thread.
    public func allItems() async throws -> [Keychain.Item] {
        try await offloaded { try keychain.allItems() }
    }

    /// `Keychain.set(_:for:label:comment:accessibility:)` for `Data`, off the caller's thread.
    public func set(_ data: Data, for account: String, label: String? = nil, comment: String? = nil,
                    accessibility: Accessibility? = nil) async throws {
        try await offloaded { try keychain.set(data, for: account, label: label, comment: comment, accessibility: accessibility) }
    }

    /// `Keychain.set(_:for:label:comment:accessibility:)` for text, off the caller's thread.
    public func set(_ text: String, for account: String, label: String? = nil, comment: String? = nil,
                    accessibility: Accessibility? = nil) async throws {
        try await offloaded { try keychain.set(text, for: account, label: label, comment: comment, accessibility: accessibility) }
    }

    /// `Keychain.set(_:for:label:comment:accessibility:)` for an `Encodable` value, off the caller's thread.
    public func set<Value: Encodable & Sendable>(_ value: Value, for account: String, label: String? = nil,
                                                 comment: String? = nil, accessibility: Accessibility? = nil) async throws {
        try await offloaded { try keychain.set(value, for: account, label: label, comment: comment, accessibility: accessibility) }
    }

    /// `Keychain.remove(_:)`, off the caller's thread.
    @discardableResult
    public func remove(_ account: String) async throws -> Bool {
        try await offloaded { try keychain.remove(account) }
    }

    /// `Keychain.removeAll()`, off the caller's thread.
    @discardableResult
    public func removeAll() async throws -> Int {
        try await offloaded { try keychain.removeAll() }
    }
}

/// The queue on which async calls do their blocking work.
private let blockingQueue = DispatchQueue(label: "LinuxKeychain.blocking", attributes: .concurrent)

private func offloaded<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        blockingQueue.async {
            continuation.resume(with: Swift.Result { try body() })
        }
    }
}
