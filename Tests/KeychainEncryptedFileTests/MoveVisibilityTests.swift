import Foundation
import KeychainConformance
import KeychainCore
import KeychainEncryptedFile
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
        #expect(writerFailure.error == nil, "\(String(describing: writerFailure.error))")
        #expect(wrongCounts.isEmpty, "\(wrongCounts.count) of \(scans) scans during moves saw \(Set(wrongCounts)) items instead of 1")
    }
}

private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

private final class ErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (any Error)?
    func set(_ error: any Error) { lock.withLock { stored = error } }
    var error: (any Error)? { lock.withLock { stored } }
}
