import Foundation
import KeychainCore
import LinuxKeychain
import Testing

/// A program entitled to two access groups, as KeychainAccess's test host is (its own and a
/// team's shared group): a query that names no group spans both, as on Apple platforms.
@Suite("a program entitled to several access groups")
struct EntitledAccessGroupsTests {
    private static func query(_ service: String, group: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let group { query[kSecAttrAccessGroup as String] = group }
        return query
    }

    private static func secret(_ service: String, _ account: String, group: String? = nil) -> (OSStatus, String?) {
        var query = query(service, group: group)
        query[kSecAttrAccount as String] = account
        query[kSecReturnData as String] = true
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    @Test(arguments: EveryBackend.names)
    func aQueryWithoutAGroupSpansEveryEntitledGroup(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let service = EveryBackend.uniqueName("entitled")
            let own = "\(service).app", shared = "\(service).team.shared"
            try KeychainProgramIdentity.withAccessGroups([own, shared]) {
                defer { SecItemDelete(Self.query(service) as CFDictionary) }
                // Written by naming the shared group, as `Keychain(service:accessGroup:)` does.
                var add = Self.query(service, group: shared)
                add[kSecAttrAccount as String] = "username"
                add[kSecValueData as String] = Data("in-shared".utf8)
                #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                // Added without a group: into the first, the program's own.
                var ownAdd = Self.query(service)
                ownAdd[kSecAttrAccount as String] = "own-only"
                ownAdd[kSecValueData as String] = Data("in-own".utf8)
                #expect(SecItemAdd(ownAdd as CFDictionary, nil) == errSecSuccess)
                #expect(Self.secret(service, "own-only", group: own).1 == "in-own")

                // Read without a group: found in the shared group.
                #expect(Self.secret(service, "username").1 == "in-shared")
                var change = Self.query(service)
                change[kSecAttrAccount as String] = "username"
                #expect(SecItemUpdate(change as CFDictionary, [kSecValueData as String: Data("changed".utf8)] as CFDictionary) == errSecSuccess)
                #expect(Self.secret(service, "username", group: shared).1 == "changed")

                // Removed without a group: "the query will match all access groups".
                #expect(SecItemDelete(Self.query(service) as CFDictionary) == errSecSuccess)
                #expect(Self.secret(service, "username", group: shared).0 == errSecItemNotFound, "the item in the shared group survived")
                #expect(Self.secret(service, "own-only").0 == errSecItemNotFound)
            }
        }
    }

    @Test(arguments: EveryBackend.names)
    func groupsTheProgramIsNotEntitledToStayOutOfReach(_ backend: String) throws {
        try EveryBackend.run(backend) { () throws in
            let service = EveryBackend.uniqueName("not-entitled")
            let stranger = "\(service).stranger"
            defer {
                var cleanup = Self.query(service, group: stranger)
                cleanup[kSecAttrAccount as String] = "theirs"
                SecItemDelete(cleanup as CFDictionary)
            }
            var add = Self.query(service, group: stranger)
            add[kSecAttrAccount as String] = "theirs"
            add[kSecValueData as String] = Data("theirs".utf8)
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            try KeychainProgramIdentity.withAccessGroups(["\(service).app", "\(service).team"]) {
                #expect(Self.secret(service, "theirs").0 == errSecItemNotFound)
                #expect(SecItemDelete(Self.query(service) as CFDictionary) == errSecItemNotFound)
            }
            #expect(Self.secret(service, "theirs", group: stranger).1 == "theirs")
        }
    }
}
