import CKeyutils
import Foundation
import Glibc
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Synchronization
import Testing

/// Items (`ItemWriter`) under writers that race each other, or that died half way: what
/// readers and listings see of an item is always one whole version of it.
///
/// Each test works in a keyring of its own, linked in the session keyring so that every
/// thread possesses it.
@Suite("kernel keyring item races")
struct ItemRaceTests {
    let kernel = KernelKeys()

    private func withTarget(_ body: (key_serial_t) throws -> Void) throws {
        try kernel.withSessionKeyring("item-race", body)
    }

    private static let largeComment = String(repeating: "c", count: 3000)

    /// Items `service`, accounts a0, a1, ..., secret "secret", with the attributes `extra`
    /// gives each index.
    private func addItems(_ service: String, _ count: Int, in target: key_serial_t,
                          _ extra: (Int) -> [AttributeKey: AttributeValue]) throws {
        let backend = KernelKeyringBackend(testingIn: target)
        for index in 0..<count { try backend.add(genericItem(service, "a\(index)", Data("secret".utf8), extra: extra(index))) }
    }

    /// Runs `read` over and over on `threads` other threads (passing each its index) while
    /// `write` runs on this one, then stops them and waits for them.
    private func reading(on threads: Int = 1, _ read: @escaping @Sendable (Int) -> Void,
                         while write: () throws -> Void) throws {
        let finished = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            Thread.detachNewThread {
                while !finished.load(ordering: .acquiring) { read(thread) }
                done.signal()
            }
        }
        defer {
            finished.store(true, ordering: .releasing)
            for _ in 0..<threads { done.wait() }
        }
        try write()
    }

    private func text(_ secret: SecretBytes?) -> String? { secret.map { String(decoding: $0.makeData(), as: UTF8.self) } }

    /// A delete unlinks the item key first, and the entry and attributes key after, under the
    /// lock, only if the entry is still its own: an add of the name in between (or a delete
    /// that died after its first step) leaves the old attributes key beside the new item.
    /// A listing must not take that key for the item.
    @Test func anAttributesKeyLeftByADeleteIsNotListedAsTheItemAddedAfter() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("leftover")
            let count = 8
            for index in 0..<count {
                let account = "acct\(index)"
                try backend.add(genericItem(service, account, Data("old".utf8), extra: [.comment: .string(Self.largeComment)]))
                let description = try ItemKeyDescription(genericItem(service, account, Data()).primaryKey)
                // The delete's first step: the item key goes, which ends the item.
                try kernel.unlink(try kernel.search(target, type: "user", description: description.text), from: target)
                try backend.add(genericItem(service, account, Data("new".utf8), extra: [.label: .string("new")]))
            }
            let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                limit: .all, includeSecrets: true)
            let found = try backend.search(all)
            #expect(found.count == count)
            for item in found {
                #expect(text(item.secret) == "new", "\(item.attributes[.account].map { "\($0)" } ?? "?"): the old item's leftover was listed")
                #expect(item.attributes[.label] == .string("new"))
                let hasOldComment = item.attributes[.comment] != nil
                #expect(!hasOldComment)
            }
        }
    }

    /// Two updates of one item at once, each changing the secret and the label to the same
    /// value: the item ends with one update's secret and label, never one of each.
    @Test func twoUpdatesAtOnceLeaveOneOfThemWhole() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("update-race")
            try backend.add(genericItem(service, "acct", Data("start".utf8), extra: [.label: .string("start")]))
            let failures = Locked<[String]>([])
            var mixed: [String] = []
            for round in 0..<400 {
                let done = DispatchSemaphore(value: 0)
                for writer in ["a", "b"] {
                    Thread.detachNewThread {
                        let value = "\(writer)\(round)"
                        do {
                            _ = try backend.update(exactQuery(service, "acct", secrets: false),
                                                   with: ItemChanges(attributes: ItemAttributes([.label: .string(value)]),
                                                                     secret: SecretBytes(Data(value.utf8))))
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                        done.signal()
                    }
                }
                done.wait()
                done.wait()
                let item = try #require(try backend.search(exactQuery(service, "acct", secrets: true)).first)
                if case .string(let label)? = item.attributes[.label], label == text(item.secret) { continue }
                mixed.append("round \(round): label \(item.attributes[.label].map { "\($0)" } ?? "none"), secret \(text(item.secret) ?? "none")")
            }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(mixed.isEmpty, "\(mixed.count) rounds mixed the two updates, e.g. \(mixed.first ?? "")")
        }
    }

    /// Items updated while another thread reads them, half with attributes too large for an
    /// entry: the reader always finds the item, with its secret.
    @Test func anItemStaysFoundWithItsSecretWhileUpdated() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("rewrite-large")
            let count = 60
            try addItems(service, count, in: target) { $0.isMultiple(of: 2) ? [.comment: .string(Self.largeComment)] : [:] }
            let current = Atomic<Int>(0)
            let wrong = Locked<[String]>([])
            try reading({ _ in
                let index = current.load(ordering: .acquiring)
                let found: KeychainItem?
                do {
                    found = try backend.search(exactQuery(service, "a\(index)", secrets: true)).first
                } catch {
                    wrong.withLock { $0.append("a\(index): \(error)") }
                    return
                }
                guard let item = found else {
                    wrong.withLock { $0.append("a\(index): not found") }
                    return
                }
                if item.secret?.makeData() != Data("secret".utf8) {
                    wrong.withLock { $0.append("a\(index): '\(self.text(item.secret) ?? "none")'") }
                }
            }, while: {
                for index in 0..<count {
                    current.store(index, ordering: .releasing)
                    usleep(200)
                    _ = try backend.update(exactQuery(service, "a\(index)", secrets: false),
                                           with: ItemChanges(attributes: ItemAttributes([.label: .string("new")])))
                    usleep(200)
                }
            })
            #expect(wrong.withLock { $0 }.isEmpty, "a reader got no item or another secret: \(wrong.withLock { $0.prefix(3) })")
            for index in 0..<count {
                let item = try #require(try backend.search(exactQuery(service, "a\(index)", secrets: true)).first)
                #expect(item.secret?.makeData() == Data("secret".utf8))
                #expect(item.attributes[.label] == .string("new"))
                let keptComment = item.attributes[.comment] == (index.isMultiple(of: 2) ? .string(Self.largeComment) : nil)
                #expect(keptComment)
            }
        }
    }

    /// Two updates of one item with large attributes at once, one making them small (so its
    /// attributes key goes) and one rewriting them large: the item stays found.
    @Test func anUpdateThatDropsTheAttributesKeyDoesNotTakeAnotherUpdatesOne() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("superseded")
            try backend.add(genericItem(service, "acct", Data("s".utf8), extra: [.comment: .string(Self.largeComment)]))
            let failures = Locked<[String]>([])
            var lost: [Int] = []
            for round in 0..<300 {
                let done = DispatchSemaphore(value: 0)
                for comment in ["small", Self.largeComment + "\(round)"] {
                    Thread.detachNewThread {
                        do {
                            _ = try backend.update(exactQuery(service, "acct", secrets: false),
                                                   with: ItemChanges(attributes: ItemAttributes([.comment: .string(comment)])))
                        } catch {
                            failures.withLock { $0.append("\(error)") }
                        }
                        done.signal()
                    }
                }
                done.wait()
                done.wait()
                guard try backend.search(exactQuery(service, "acct", secrets: false)).first != nil else {
                    lost.append(round)
                    break
                }
                _ = try backend.update(exactQuery(service, "acct", secrets: false),
                                       with: ItemChanges(attributes: ItemAttributes([.comment: .string(Self.largeComment)])))
            }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(lost.isEmpty, "the item was lost in round \(lost)")
        }
    }

    /// An item deleted and added again over and over while other threads read and update it:
    /// each read finds it, with its secret, or does not find it; each update lands or finds
    /// nothing. Neither reports an error.
    @Test func readsAndUpdatesRacingDeletesFailOnlyAsNotFound() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("read-delete")
            try backend.add(genericItem(service, "acct", Data("secret".utf8)))
            let failures = Locked<[String]>([])
            try reading(on: 2, { thread in
                do {
                    if thread == 0 {
                        if let item = try backend.search(exactQuery(service, "acct", secrets: true)).first,
                           item.secret?.makeData() != Data("secret".utf8) {
                            failures.withLock { $0.append("read another secret") }
                        }
                    } else {
                        _ = try backend.update(exactQuery(service, "acct", secrets: false),
                                               with: ItemChanges(attributes: ItemAttributes([.label: .string("l")]),
                                                                 secret: SecretBytes(Data("secret".utf8))))
                    }
                } catch {
                    failures.withLock { $0.append("\(thread == 0 ? "read" : "update"): \(error)") }
                }
            }, while: {
                for _ in 0..<400 {
                    _ = try backend.delete(exactQuery(service, "acct", secrets: false))
                    try backend.add(genericItem(service, "acct", Data("secret".utf8)))
                }
            })
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.count }) failures, e.g. \(failures.withLock { $0.prefix(2) })")
        }
    }

    /// Listings while items are updated: every item is in every listing.
    @Test func aListingFindsEveryItemWhileTheyAreUpdated() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("list-rewrite")
            let count = 40
            try addItems(service, count, in: target) { _ in [:] }
            let short = Locked<[Int]>([])
            let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                limit: .all, includeSecrets: false)
            try reading({ _ in
                do {
                    let listed = try backend.search(all).count
                    if listed != count { short.withLock { $0.append(listed) } }
                } catch {
                    short.withLock { $0.append(-1) }
                }
            }, while: {
                for index in 0..<count {
                    _ = try backend.update(exactQuery(service, "a\(index)", secrets: false),
                                           with: ItemChanges(attributes: ItemAttributes([.label: .string("new")])))
                    usleep(500)
                }
            })
            #expect(short.withLock { $0 }.isEmpty, "listings of \(short.withLock { $0 }) items instead of \(count)")
        }
    }

    /// A delete killed after it removed a large item's entry, before it unlinked the
    /// attributes key: the item is gone (a lookup by name says so), and a listing does not
    /// bring it back.
    @Test func anAttributesKeyLeftAloneByADeleteIsNoItemInAListing() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("ghost")
            try backend.add(genericItem(service, "acct", Data("secret".utf8), extra: [.comment: .string(Self.largeComment)]))
            let store = ItemRecords(kernel: kernel)
            let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
            // The delete's steps but the last: the item key, then the entry.
            try kernel.unlink(try kernel.search(target, type: "user", description: description.text), from: target)
            try KeyringRecordLock(kernel: kernel).withLock(in: target) {
                try store.changeEntryLocked(ItemRecords.nameHash(description), in: target) { _ in nil }
            }
            #expect(try backend.search(exactQuery(service, "acct", secrets: true)).isEmpty)
            let all = ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]),
                                limit: .all, includeSecrets: true)
            let listed = try backend.search(all)
            #expect(listed.isEmpty, "a deleted item was listed again, secret '\(listed.first.flatMap { text($0.secret) } ?? "")'")
        }
    }

    /// An add over what a delete left (the entry of a large item, and its attributes key) does
    /// not leave the old attributes key behind, where it would cost quota for good.
    @Test func anAddOverALeftoverEntryTakesItsAttributesKeyAway() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("leftover-quota")
            try backend.add(genericItem(service, "acct", Data("old".utf8), extra: [.comment: .string(Self.largeComment)]))
            let description = try ItemKeyDescription(genericItem(service, "acct", Data()).primaryKey)
            // The delete's first step only, as when an add of the name overtakes it.
            try kernel.unlink(try kernel.search(target, type: "user", description: description.text), from: target)
            try backend.add(genericItem(service, "acct", Data("new".utf8)))
            #expect((try? kernel.search(target, type: "user", description: AttributesKey.description(of: description))) == nil,
                    "the old attributes key is still there")
            #expect(text(try backend.search(exactQuery(service, "acct", secrets: true)).first?.secret) == "new")
        }
    }

    /// An item updated from large attributes to small ones and back, over and over, while
    /// another thread reads it by name, or lists the keyring: the reader always finds it.
    @Test(arguments: [false, true])
    func anItemWhoseAttributesKeyComesAndGoesStaysFound(listing: Bool) throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("toggle")
            try backend.add(genericItem(service, "acct", Data("secret".utf8), extra: [.comment: .string(Self.largeComment)]))
            let misses = Atomic<Int>(0)
            let failures = Locked<[String]>([])
            let query = listing
                ? ItemQuery(itemClass: .genericPassword, constraints: ItemAttributes([.service: .string(service)]), limit: .all)
                : exactQuery(service, "acct", secrets: false)
            try reading({ _ in
                do {
                    if try backend.search(query).first == nil { misses.add(1, ordering: .relaxed) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }, while: {
                for round in 0..<1000 {
                    let comment = round.isMultiple(of: 2) ? "small" : Self.largeComment
                    _ = try backend.update(exactQuery(service, "acct", secrets: false),
                                           with: ItemChanges(attributes: ItemAttributes([.comment: .string(comment)])))
                }
            })
            #expect(misses.load(ordering: .relaxed) == 0, "the reader missed the item \(misses.load(ordering: .relaxed)) times")
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(2) })")
        }
    }

    /// An item whose secret is updated to empty and back, over and over, while another thread
    /// reads it: the reader gets the empty secret or the other one, never the placeholder byte
    /// that stands for an empty secret in the item key.
    @Test func aSecretUpdatedToEmptyNeverReadsAsThePlaceholder() throws {
        try withTarget { target in
            let backend = KernelKeyringBackend(testingIn: target)
            let service = uniqueService("empty-toggle")
            try backend.add(genericItem(service, "acct", Data("x".utf8)))
            let wrong = Locked<[Data]>([])
            try reading({ _ in
                guard let secret = try? backend.search(exactQuery(service, "acct", secrets: true)).first?.secret?.makeData() else {
                    return
                }
                if secret != Data() && secret != Data("x".utf8) { wrong.withLock { $0.append(secret) } }
            }, while: {
                for round in 0..<1000 {
                    let secret = round.isMultiple(of: 2) ? Data() : Data("x".utf8)
                    _ = try backend.update(exactQuery(service, "acct", secrets: false), with: ItemChanges(secret: SecretBytes(secret)))
                }
            })
            #expect(wrong.withLock { $0.count } == 0, "the reader got \(wrong.withLock { $0.count }) wrong secrets, the first \(wrong.withLock { $0.first.map { Array($0) } ?? [] })")
        }
    }
}
