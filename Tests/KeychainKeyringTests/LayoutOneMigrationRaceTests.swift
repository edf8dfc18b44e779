import CKeyutils
import Foundation
import Glibc
import KeychainCore
@testable import KeychainKeyring
import Synchronization
import Testing

/// Lookups, updates and deletes by name while another thread's first listing migrates the
/// keyring's layout-1 items (`LayoutThreeRecord.swift`). A migration adds the layout-3 item
/// and then unlinks the item keyring, and the listing writes the record after the last one:
/// a lookup whose layout-2 search came before an item's move and whose layout-1 check (the
/// record, or the item keyring) came after must still find the item, which existed
/// throughout; an update of the item read in layout 1 must land on the migrated copy; and a
/// delete must not be undone by the migration copying the item it deleted.
@Suite("kernel keyring operations racing the migration of layout 1")
struct LayoutOneMigrationRaceTests {
    let kernel = KernelKeys()

    /// What the racing thread does to each item.
    enum Operation: String, CaseIterable, Sendable {
        /// Looks it up: it must be found.
        case lookup
        /// Updates its secret: the update must change one item, which then has that secret.
        case update
        /// Deletes it (in the first pass only): one item deleted, and none left after.
        case delete
    }

    @Test(arguments: Operation.allCases)
    func anOperationRacingTheFirstListingSeesEveryItem(_ operation: Operation) throws {
        // The session keyring: every thread of the process possesses what is linked there.
        let session = keyctl_get_keyring_ID(KEY_SPEC_SESSION_KEYRING, 0)
        try #require(session > 0)
        let missed = Atomic<Int>(0)
        let lookups = Atomic<Int>(0)
        let racing = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let firstError = Mutex<String?>(nil)
        let wrongAfter = Atomic<Int>(0)
        for _ in 0..<Self.rounds {
            let serial = try kernel.addKeyring(uniqueService("race"), to: session)
            defer { try? kernel.unlink(serial, from: session) }
            let backend = KernelKeyringBackend(testingIn: serial)
            let services = try (0..<Self.itemsPerRound).map {
                try kernel.craftItem(uniqueService("old-\($0)"), in: serial, storedIn: serial).service
            }
            let before = try kernel.contents(of: serial).count
            let listed = Atomic<Bool>(false)
            let readerReady = DispatchSemaphore(value: 0)
            // Threads of their own: neither waits for a place in a shared pool.
            let lister = Thread.start {
                readerReady.wait()
                // A miss of another name: this thread lists the keyring and migrates everything.
                _ = try? backend.search(primaryKeyQuery(uniqueService("other"), "acct", secrets: false))
                listed.store(true, ordering: .sequentiallyConsistent)
            }
            let reader = Thread.start {
                // Starts once the listing has begun migrating, so that it is the listing's thread.
                readerReady.signal()
                while (try? self.kernel.contents(of: serial).count) == before,
                      !listed.load(ordering: .sequentiallyConsistent) {}
                var passesAfterListing = 0
                var passes = 0
                while passesAfterListing < 2 {
                    if listed.load(ordering: .sequentiallyConsistent) { passesAfterListing += 1 } else { racing.add(1, ordering: .relaxed) }
                    for service in services {
                        lookups.add(1, ordering: .relaxed)
                        do {
                            switch operation {
                            case .lookup:
                                if try backend.search(primaryKeyQuery(service, "acct", secrets: false)).isEmpty {
                                    missed.add(1, ordering: .relaxed)
                                }
                            case .update:
                                let changes = ItemChanges(secret: SecretBytes(Data("new-\(passes)".utf8)))
                                // Only this thread changes secrets: it reads back what it wrote.
                                if try backend.update(primaryKeyQuery(service, "acct", secrets: false), with: changes) != 1
                                    || backend.search(primaryKeyQuery(service, "acct", secrets: true)).first?.secret?.makeData()
                                    != Data("new-\(passes)".utf8) {
                                    missed.add(1, ordering: .relaxed)
                                }
                            case .delete:
                                guard passes == 0 else { continue }
                                if try backend.delete(primaryKeyQuery(service, "acct", secrets: false)) != 1 {
                                    missed.add(1, ordering: .relaxed)
                                }
                            }
                        } catch {
                            failed.add(1, ordering: .relaxed)
                            firstError.withLock { $0 = $0 ?? "\(error)" }
                        }
                    }
                    passes += 1
                }
                // What the last pass left, once the listing is over.
                for service in services {
                    let found = (try? backend.search(primaryKeyQuery(service, "acct", secrets: true))) ?? []
                    let expected = operation == .delete ? nil : Data((operation == .update ? "new-\(passes - 1)" : "secret").utf8)
                    if found.first?.secret?.makeData() != expected || found.count > 1 { wrongAfter.add(1, ordering: .relaxed) }
                }
            }
            lister.wait()
            reader.wait()
        }
        #expect(failed.load(ordering: .relaxed) == 0, "\(failed.load(ordering: .relaxed)) operations on existing items failed: \(firstError.withLock { $0 } ?? "")")
        // Without operations made while the listing ran, the test proves nothing.
        #expect(racing.load(ordering: .relaxed) > 0, "no operation overlapped a listing")
        #expect(missed.load(ordering: .relaxed) == 0,
                "\(missed.load(ordering: .relaxed)) of \(lookups.load(ordering: .relaxed)) operations on existing items missed the item or lost their effect")
        #expect(wrongAfter.load(ordering: .relaxed) == 0, "\(wrongAfter.load(ordering: .relaxed)) items were left in the wrong state")
    }

    static let rounds = 150
    static let itemsPerRound = 24
}

private extension Thread {
    /// Runs `body` on a new thread; the semaphore returned is signalled when it returns.
    static func start(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        Thread {
            body()
            finished.signal()
        }.start()
        return finished
    }
}
