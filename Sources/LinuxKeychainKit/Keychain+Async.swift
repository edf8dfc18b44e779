import Dispatch
import Foundation
import KeychainCore

/// Async overloads of the typed API.
///
/// Store calls block (D-Bus round trips, fsync, HTTP), so they run on a dedicated queue and
/// the awaiting task is resumed when they finish; the cooperative thread pool never blocks.
extension Keychain {
    public func data(for account: String) async throws -> Data? {
        try await offloaded { try self.data(for: account) }
    }

    public func string(for account: String) async throws -> String? {
        try await offloaded { try self.string(for: account) }
    }

    public func decodable<Value: Decodable & Sendable>(_ type: Value.Type, for account: String) async throws -> Value? {
        try await offloaded { try self.decodable(type, for: account) }
    }

    public func contains(_ account: String) async throws -> Bool {
        try await offloaded { try self.contains(account) }
    }

    public func allAccounts() async throws -> [String] {
        try await offloaded { try self.allAccounts() }
    }

    public func set(_ data: Data, for account: String) async throws {
        try await offloaded { try self.set(data, for: account) }
    }

    public func set(_ text: String, for account: String) async throws {
        try await offloaded { try self.set(text, for: account) }
    }

    public func setEncodable<Value: Encodable & Sendable>(_ value: Value, for account: String) async throws {
        try await offloaded { try self.setEncodable(value, for: account) }
    }

    @discardableResult
    public func remove(_ account: String) async throws -> Bool {
        try await offloaded { try self.remove(account) }
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        try await offloaded { try self.removeAll() }
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
