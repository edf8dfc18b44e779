import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import LinuxKeychain
import LinuxKeychainKit
import Testing

extension SecretServiceTests {
    /// Which properties request a get sends for the item it found, watched with dbus-monitor on
    /// the test bus: a get of the secret alone asks for the item's attributes only
    /// (`Properties.Get`), and a get that returns attributes reads them all (`GetAll`), so that
    /// the label is there.
    @Suite("The properties a get reads", .serialized)
    struct ItemReadRequests {
        let backend = SecretServiceTestSupport.backend

        @Test func aGetOfTheSecretAloneReadsOnlyTheAttributes() throws {
            let (service, path) = try addItem("data-only")
            defer { removeItem(service) }
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                        kSecAttrAccount as String: "ida", kSecReturnData as String: true]
            var status: OSStatus = errSecIO
            var result: AnyObject?
            let requests = try PropertiesRequests.watching(path) {
                status = KeychainBackendRegistry.withBackend(backend) { SecItemCopyMatching(query as CFDictionary, &result) }
            }
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("read me".utf8))
            requests.expectTheAttributesAlone(readBy: "a get of the secret alone")
        }

        @Test func aGetReturningAttributesReadsTheLabelToo() throws {
            let (service, path) = try addItem("attributes")
            defer { removeItem(service) }
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                        kSecAttrAccount as String: "ida", kSecReturnData as String: true,
                                        kSecReturnAttributes as String: true]
            var status: OSStatus = errSecIO
            var result: AnyObject?
            let requests = try PropertiesRequests.watching(path) {
                status = KeychainBackendRegistry.withBackend(backend) { SecItemCopyMatching(query as CFDictionary, &result) }
            }
            #expect(status == errSecSuccess)
            let attributes = result as? [String: Any]
            #expect(attributes?[kSecAttrLabel as String] as? String == "A label of its own")
            #expect(attributes?[kSecValueData as String] as? Data == Data("read me".utf8))
            #expect(requests.getAll == 1, "a get returning attributes sent \(requests.getAll) GetAll for the item")
        }

        /// `linux-keychain get` (and `linux-keychain run`) print secrets only: the CLI's read asks for the
        /// attributes alone, which still carry the access group it chooses items by.
        @Test func theCLIsGetReadsOnlyTheAttributes() throws {
            let (service, path) = try addItem("cli-get")
            defer { removeItem(service) }
            var get: KeychainCLIProcess.Result?
            let requests = try PropertiesRequests.watching(path) {
                get = try KeychainCLIProcess.run(try SecretServiceTestSupport.cli(),
                                                 ["--backend", "secret-service", "get", service, "ida"])
            }
            #expect(get?.status == 0 && get?.output == Data("read me".utf8), "\(get?.errorText ?? "")")
            requests.expectTheAttributesAlone(readBy: "linux-keychain get")
        }

        /// The typed API's `data(for:)` wants the secret alone, and reads the attributes alone.
        @Test func theTypedAPIsDataReadsOnlyTheAttributes() throws {
            let (service, path) = try addItem("typed-data")
            defer { removeItem(service) }
            let keychain = Keychain(service: service, accessGroup: "", backend: backend)
            var data: Data?
            let requests = try PropertiesRequests.watching(path) { data = try keychain.data(for: "ida") }
            #expect(data == Data("read me".utf8))
            requests.expectTheAttributesAlone(readBy: "data(for:)")
        }

        /// The same figures straight through the backend: a query that matches on the label
        /// reads it, even when it returns no attributes.
        @Test func aQueryMatchingOnTheLabelReadsIt() throws {
            let (service, path) = try addItem("label-match")
            defer { removeItem(service) }
            var query = exactQuery(service, "ida")
            query.includeAttributes = false
            query.constraints[.label] = .string("A label of its own")
            var found: [KeychainItem] = []
            let requests = try PropertiesRequests.watching(path) { found = try backend.search(query) }
            #expect(found.first?.secret?.makeData() == Data("read me".utf8))
            #expect(requests.getAll == 1, "a search matching on the label sent \(requests.getAll) GetAll")
            query.constraints[.label] = .string("another label")
            #expect(try backend.search(query).isEmpty, "the label was not matched")
        }

        /// Adds (service, "ida") with a label, and returns the service and the end of the item's
        /// object path (from its collection's path on, as secret-tool shows it). Cancels the
        /// test when the Secret Service is not available.
        private func addItem(_ purpose: String) throws -> (String, String) {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName(purpose)
            try backend.add(genericItem(service, "ida", Data("read me".utf8),
                                                                 extra: [.label: .string("A label of its own")]))
            // secret-tool prints each item's object path in brackets, from the collection's on.
            let search = try runTool("secret-tool", ["search", "--all", "service", service])
            let listing = search.outputText + search.errorText
            guard let open = listing.firstIndex(of: "["), let close = listing[open...].firstIndex(of: "]") else {
                throw ConformanceFailure("secret-tool did not list the item's path: \(listing)")
            }
            return (service, String(listing[listing.index(after: open)..<close]))
        }

        private func removeItem(_ service: String) {
            _ = try? backend.delete(exactQuery(service, "ida", secrets: false))
        }
    }
}

/// The `org.freedesktop.DBus.Properties` requests sent for the object whose path ends in
/// `pathEnd` while a body ran, as dbus-monitor saw them on the session bus.
private struct PropertiesRequests {
    var getAll = 0
    var getAttributes = 0

    /// Expects what a caller that wants the secret alone sends: one `Get(Attributes)`, no `GetAll`.
    func expectTheAttributesAlone(readBy caller: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(getAll == 0, "\(caller) sent GetAll for the item", sourceLocation: sourceLocation)
        #expect(getAttributes == 1, "\(caller) sent \(getAttributes) Get(Attributes)", sourceLocation: sourceLocation)
    }

    static func watching(_ pathEnd: String, _ body: () throws -> Void) throws -> PropertiesRequests {
        let lines = try DBusMonitor.lines(matching: "type='method_call',interface='org.freedesktop.DBus.Properties'",
                                          during: body)
        var requests = PropertiesRequests()
        for (index, line) in lines.enumerated() where line.contains("\(pathEnd);") {
            if line.hasSuffix("member=GetAll") { requests.getAll += 1 }
            if line.hasSuffix("member=Get"), lines.dropFirst(index + 1).prefix(2).contains(where: { $0.contains("\"Attributes\"") }) {
                requests.getAttributes += 1
            }
        }
        return requests
    }
}
