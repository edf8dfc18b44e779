import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
import KeychainTestSupport
import Testing

/// The contract says no reader ever sees an item missing mid-update. A move writes the new file
/// and removes the old one in another directory, so a reader that lists the store while a move
/// runs must not see the item at neither key (or at both).
@Suite("file backend: reads during moves")
struct MoveVisibilityTests {
    @Test func aFullScanDuringMovesAlwaysSeesTheItemExactlyOnce() throws {
        let store = try TemporaryStore()
        let backend = store.backend()
        try backend.add(genericItem("svc", "a", "the secret"))
        // Other items make a full scan take long enough for moves to happen during it.
        let others = 100
        for index in 0..<others { try backend.add(genericItem("other", "\(index)", "x")) }
        let moves = 60
        let finished = Flag()
        let writerFailure = ErrorBox()

        let writer = Thread {
            defer { finished.set() }
            do {
                for index in 0..<moves {
                    let (from, to) = index % 2 == 0 ? ("a", "b") : ("b", "a")
                    let moved = try backend.update(ItemQuery(primaryKey: genericItem("svc", from, "").primaryKey),
                                                   with: ItemChanges(attributes: ItemAttributes([.account: .string(to)])))
                    guard moved == 1 else { throw ConformanceFailure("move \(index) changed \(moved) items") }
                }
            } catch {
                writerFailure.set(error)
            }
        }
        writer.start()

        let reader = store.backend()
        var scans = 0
        var wrongCounts: [Int] = []
        while !finished.isSet || scans == 0 {
            let count = try everyItem(reader).filter { $0.attributes.string(.service) == "svc" }.count
            if count != 1 { wrongCounts.append(count) }
            scans += 1
        }
        #expect(writerFailure.error == nil, "\(writerFailure.error ?? "")")
        #expect(wrongCounts.isEmpty, "\(wrongCounts.count) of \(scans) scans during moves saw \(Set(wrongCounts)) items instead of 1")
    }
}

private final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// The text of the error a thread hit, if any.
private final class ErrorBox: Sendable {
    private let stored = Locked<String?>(nil)
    func set(_ error: any Error) { stored.withLock { $0 = "\(error)" } }
    var error: String? { stored.withLock { $0 } }
}
