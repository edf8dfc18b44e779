public import Foundation
public import KeychainCore

// The vocabulary the suite's cases are written in, public so that a backend's author can write
// cases of their own in the same style. Every failure is a `ConformanceFailure` whose text says
// what was expected; none of them ever quotes a secret's bytes.

/// Throws `ConformanceFailure(message)` unless `condition` holds.
public func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ConformanceFailure(message()) }
}

/// Runs `body`, which must throw a `KeychainError` with `status`; `what` names the attempt.
public func expectStatus(_ status: OSStatus, _ what: String, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as KeychainError {
        try expect(error.status == status, "\(what): expected OSStatus \(status), got \(error)")
        return
    }
    throw ConformanceFailure("\(what): expected OSStatus \(status), but it succeeded")
}

/// A generic password (service, account) holding `secret`, with `extra` attributes.
public func genericItem(_ service: String, _ account: String, _ secret: Data,
                        extra: [AttributeKey: AttributeValue] = [:]) -> KeychainItem {
    var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
    values.merge(extra) { _, new in new }
    return KeychainItem(itemClass: .genericPassword, attributes: ItemAttributes(values), secret: SecretBytes(secret))
}

/// A limit-one query for the generic password (service, account), with its secret unless `secrets` is false.
public func exactQuery(_ service: String, _ account: String, secrets: Bool = true) -> ItemQuery {
    ItemQuery(itemClass: .genericPassword,
              constraints: ItemAttributes([.service: .string(service), .account: .string(account)]),
              limit: .one, includeSecrets: secrets)
}

/// A match-all query for every generic password of `service`.
public func serviceQuery(_ service: String, secrets: Bool = false) -> ItemQuery {
    ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
              limit: .all, includeSecrets: secrets)
}

/// The secret stored under (service, account), or nil when there is no such item.
public func storedSecret(_ backend: any KeychainBackend, _ service: String, _ account: String) throws -> Data? {
    let found = try backend.search(exactQuery(service, account))
    try expect(found.count <= 1, "a limit-one search returned \(found.count) items")
    guard let item = found.first else { return nil }
    guard let secret = item.secret else { throw ConformanceFailure("a search with includeSecrets returned no secret") }
    return secret.makeData()
}

/// Fails unless (service, account) exists and holds exactly `expected`.
public func expectSecret(_ backend: any KeychainBackend, _ service: String, _ account: String, _ expected: Data) throws {
    let actual = try storedSecret(backend, service, account)
    try expect(actual != nil, "item (\(service), \(account)) was not found")
    try expect(actual == expected, "item (\(service), \(account)) came back with \(actual!.count) bytes that differ from the \(expected.count) stored")
}
