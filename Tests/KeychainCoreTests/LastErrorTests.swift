import Foundation
import KeychainCore
import Testing

@Suite("last error")
struct LastErrorTests {
    /// Runs `body` on a new thread and waits for it.
    private func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    @Test func successClearsTheErrorAndAFailureReplacesIt() {
        onNewThread {
            #expect(KeychainLastError.current == nil, "a new thread starts without an error")
            KeychainLastError.record(nil)
            #expect(KeychainLastError.current == nil)
            KeychainLastError.record(.notFound("first"))
            #expect(KeychainLastError.current?.message == "first")
            KeychainLastError.record(.duplicate("second"))
            #expect(KeychainLastError.current?.message == "second")
            KeychainLastError.record(nil)
            #expect(KeychainLastError.current == nil)
            KeychainLastError.record(.badParameter("third"))
            #expect(KeychainLastError.current?.status == errSecParam)
        }
    }

    @Test func eachThreadSeesOnlyItsOwnError() {
        let threads = 8
        let seen = SeenMessages()
        let group = DispatchGroup()
        for index in 0..<threads {
            group.enter()
            Thread {
                for round in 0..<200 {
                    KeychainLastError.record(round.isMultiple(of: 3) ? nil : .notFound("thread \(index)"))
                    seen.add(KeychainLastError.current?.message ?? "thread \(index)")
                }
                group.leave()
            }.start()
        }
        group.wait()
        // Every read returned the reading thread's own error; a shared slot would mix them.
        #expect(seen.counts == Dictionary(uniqueKeysWithValues: (0..<threads).map { ("thread \($0)", 200) }))
    }

    @Test func threadsThatExitLeaveNoErrorBehind() {
        for _ in 0..<50 {
            onNewThread { KeychainLastError.record(.notFound("gone with its thread")) }
        }
        onNewThread { #expect(KeychainLastError.current == nil) }
    }
}

/// Messages read on many threads, counted.
private final class SeenMessages: Sendable {
    private let storage = Locked<[String: Int]>([:])

    func add(_ message: String) { storage.withLock { $0[message, default: 0] += 1 } }
    var counts: [String: Int] { storage.withLock { $0 } }
}
