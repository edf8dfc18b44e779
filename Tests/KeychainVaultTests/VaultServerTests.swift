import Foundation
import KeychainConformance
import KeychainCore
import KeychainTestSupport
import KeychainVault
import Testing

/// How the backend's items look and behave on a real OpenBao server, checked with `bao` itself.
@Suite("vault backend on a real OpenBao server")
struct VaultServerTests {
    let prefix = VaultTestServer.uniquePrefix("server")

    private func backend() throws -> VaultBackend {
        VaultBackend(configuration: try VaultTestServer.configuration(prefix: prefix))
    }

    @Test func availabilityDescribesTheServerMountAndPrefix() throws {
        let availability = try backend().availability()
        #expect(availability.isAvailable, "\(availability.explanation)")
        #expect(availability.explanation.contains("mount 'secret'") && availability.explanation.contains(prefix))
    }

    @Test func operatorReadsPlainPasswordAndAttributesWithBao() throws {
        let backend = try backend()
        try backend.add(genericItem("billing", "alice@example.com", Data("correct horse ✓".utf8),
                                               extra: [.label: .string("Billing API")]))
        let path = "\(prefix)/generic/billing/alice@example.com"
        let password = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=password", path])
        #expect(password.status == 0, "\(password.errorText)")
        #expect(password.outputText == "correct horse ✓")
        let label = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=label", path])
        #expect(label.outputText == "Billing API")
        let account = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=account", path])
        #expect(account.outputText == "alice@example.com")
    }

    @Test func binarySecretIsStoredAsBase64UnderItsMarkerField() throws {
        let backend = try backend()
        let bytes = Data([0, 1, 2, 0xFF, 0xFE, 0x80, 0x0A, 0x1B])
        try backend.add(genericItem("blob", "key", bytes))
        let path = "\(prefix)/generic/blob/key"
        let encoded = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=password_base64", path])
        #expect(encoded.status == 0, "\(encoded.errorText)")
        #expect(Data(base64Encoded: encoded.outputText) == bytes)
        let plain = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=password", path])
        #expect(plain.status != 0, "a binary secret must not also appear as a plain password")
        #expect(try storedSecret(backend, "blob", "key") == bytes)
    }

    @Test func itemWrittenByHandWithBaoReads() throws {
        let put = try VaultTestServer.bao(["kv", "put", "-mount=secret", "\(prefix)/generic/ops-app/deploy",
                                           "password=from-ops", "label=Written by ops", "notes=ignored"])
        #expect(put.status == 0, "\(put.errorText)")
        let found = try backend().search(exactQuery("ops-app", "deploy"))
        #expect(found.first?.secret?.makeData() == Data("from-ops".utf8))
        #expect(found.first?.attributes.string(.label) == "Written by ops")
    }

    @Test func damagedItemIsAnErrorNotAbsent() throws {
        let put = try VaultTestServer.bao(["kv", "put", "-mount=secret", "\(prefix)/generic/damaged/x", "label=no password"])
        #expect(put.status == 0, "\(put.errorText)")
        let error = keychainError { _ = try backend().search(exactQuery("damaged", "x")) }
        #expect(error?.status == errSecDecode)
    }

    @Test func softDeletedItemIsAbsentAndCanBeAddedAgain() throws {
        let backend = try backend()
        try backend.add(genericItem("soft", "a", Data("v1".utf8)))
        let removed = try VaultTestServer.bao(["kv", "delete", "-mount=secret", "\(prefix)/generic/soft/a"])
        #expect(removed.status == 0, "\(removed.errorText)")
        #expect(try backend.search(exactQuery("soft", "a")).isEmpty)
        try backend.add(genericItem("soft", "a", Data("v2".utf8)))
        #expect(try storedSecret(backend, "soft", "a") == Data("v2".utf8))
    }

    @Test func deleteRemovesMetadataAndEveryVersion() throws {
        let backend = try backend()
        try backend.add(genericItem("gone", "a", Data("v1".utf8)))
        _ = try backend.update(exactQuery("gone", "a"), with: ItemChanges(secret: SecretBytes(Data("v2".utf8))))
        let versions = try VaultTestServer.bao(["kv", "metadata", "get", "-mount=secret", "-format=json", "\(prefix)/generic/gone/a"])
        #expect(versions.outputText.contains("\"current_version\": 2"), "\(versions.outputText)")
        #expect(try backend.delete(exactQuery("gone", "a")) == 1)
        let metadata = try VaultTestServer.bao(["kv", "metadata", "get", "-mount=secret", "\(prefix)/generic/gone/a"])
        #expect(metadata.status != 0, "metadata survived the delete: \(metadata.outputText)")
    }

    @Test func renameCreatesTheNewPathAndRemovesTheOld() throws {
        let backend = try backend()
        try backend.add(genericItem("moving", "old", Data("s".utf8)))
        let moved = try backend.update(exactQuery("moving", "old"),
                                       with: ItemChanges(attributes: ItemAttributes([.account: .string("new")])))
        #expect(moved == 1)
        let old = try VaultTestServer.bao(["kv", "get", "-mount=secret", "\(prefix)/generic/moving/old"])
        #expect(old.status != 0)
        let new = try VaultTestServer.bao(["kv", "get", "-mount=secret", "-field=password", "\(prefix)/generic/moving/new"])
        #expect(new.outputText == "s")
    }

    @Test func eightIndependentClientsRacingToAddOneItemGiveOneWinner() throws {
        let configuration = try VaultTestServer.configuration(prefix: prefix)
        // Separate backends, so separate sessions and connections, as separate machines have.
        let clients = (0..<8).map { _ in VaultBackend(configuration: configuration) }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: clients.count) { index in
            do {
                try clients[index].add(genericItem("race", "one", Data("winner-\(index)".utf8)))
                outcomes.append("ok")
            } catch let error as KeychainError where error.status == errSecDuplicateItem {
                outcomes.append("duplicate")
            } catch {
                outcomes.append("\(error)")
            }
        }
        #expect(outcomes.all.filter { $0 == "ok" }.count == 1, "\(outcomes.all)")
        #expect(outcomes.all.filter { $0 == "duplicate" }.count == 7, "\(outcomes.all)")
    }

    /// Each client sets a different attribute at the same moment. Check-and-set with reread
    /// and reapply keeps all eight; blind writes would keep only the last.
    @Test func concurrentUpdatesOfOneItemLoseNoChange() throws {
        let configuration = try VaultTestServer.configuration(prefix: prefix)
        try backend().add(genericItem("contended", "a", Data("s".utf8)))
        let changes: [(AttributeKey, AttributeValue)] = [
            (.label, .string("L")), (.comment, .string("C")), (.itemDescription, .string("D")), (.creator, .integer(1)),
            (.type, .integer(2)), (.isInvisible, .bool(true)), (.isNegative, .bool(true)), (.accessible, .string("ak")),
        ]
        let clients = changes.map { _ in VaultBackend(configuration: configuration) }
        let failures = Outcomes()
        DispatchQueue.concurrentPerform(iterations: changes.count) { index in
            do {
                let (key, value) = changes[index]
                let changed = try clients[index].update(exactQuery("contended", "a"),
                                                        with: ItemChanges(attributes: ItemAttributes([key: value])))
                if changed != 1 { failures.append("client \(index) changed \(changed)") }
            } catch {
                failures.append("client \(index): \(error)")
            }
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
        let item = try #require(try backend().search(exactQuery("contended", "a")).first)
        for (key, value) in changes { #expect(item.attributes[key] == value, "lost the change of \(key)") }
        #expect(item.secret?.makeData() == Data("s".utf8))
    }

    @Test func namespaceHeaderKeepsItemsInTheirNamespace() throws {
        let namespace = "lkc-\(UUID().uuidString.prefix(8).lowercased())"
        let created = try VaultTestServer.bao(["namespace", "create", namespace])
        #expect(created.status == 0, "\(created.errorText)")
        let enabled = try VaultTestServer.bao(["secrets", "enable", "-ns=\(namespace)", "-path=secret", "kv-v2"])
        #expect(enabled.status == 0, "\(enabled.errorText)")
        let root = try VaultTestServer.root()
        let backend = VaultBackend(configuration: try VaultConfiguration(address: root.address, token: VaultToken(root.token),
                                                                        namespace: namespace, prefix: prefix))
        #expect(backend.availability().isAvailable, "\(backend.availability().explanation)")
        try backend.add(genericItem("tenant", "a", Data("in-namespace".utf8)))
        let inside = try VaultTestServer.bao(["kv", "get", "-ns=\(namespace)", "-mount=secret", "-field=password", "\(prefix)/generic/tenant/a"])
        #expect(inside.outputText == "in-namespace", "\(inside.errorText)")
        let outside = try VaultTestServer.bao(["kv", "get", "-mount=secret", "\(prefix)/generic/tenant/a"])
        #expect(outside.status != 0, "the item leaked into the root namespace")
    }
}

/// Results collected from many threads.
final class Outcomes: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}
