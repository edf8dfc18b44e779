import CKeyutils
import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainKeyring
import KeychainTestSupport
import Testing

/// The record lock (`KeyringRecordLock`) against other processes, which run the same protocol
/// in `recordLockPeer` (Python over libkeyutils: the protocol is also something another tool
/// can follow in a few lines), and against threads of this process.
@Suite("kernel keyring: the record lock", .serialized)
struct KeyringRecordLockTests {
    let kernel = KernelKeys()

    @Test func processesTakingTheLockNeverLoseAnIncrement() throws {
        try withTarget { target in
            let counter = try makeCounter(in: target)
            let peers = (0..<3).map { recordLockPeer(["count", "\(target)", "\(counter)", "\(Self.increments)", "\($0)"]) }
            // Every peer has started and waits: then they and this process start together.
            try waitUntil("the peers are ready") { try kernel.contents(of: target).count == 1 + peers.count }
            try Data("go".utf8).withUnsafeBytes { _ = try kernel.addUserKey("go", payload: $0, to: target) }
            let lock = KeyringRecordLock(kernel: kernel)
            for _ in 0..<Self.increments {
                try lock.withLock(in: target) { try increment(counter) }
            }
            for peer in peers {
                let result = try peer.wait(timeout: 20)
                #expect(result.status == 0, "a peer failed: \(result.status) \(result.errorText)")
            }
            #expect(try count(counter) == (peers.count + 1) * Self.increments)
        }
    }

    @Test func threadsOfOneProcessExcludeEachOther() throws {
        try withTarget { target in
            let counter = try makeCounter(in: target)
            let failures = Locked<[String]>([])
            let threads = 4
            let done = DispatchSemaphore(value: 0)
            for _ in 0..<threads {
                Thread.detachNewThread { [kernel] in
                    let lock = KeyringRecordLock(kernel: kernel)
                    do {
                        for _ in 0..<Self.increments {
                            try lock.withLock(in: target) { try Self.increment(counter, kernel) }
                        }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    done.signal()
                }
            }
            for _ in 0..<threads { done.wait() }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(try count(counter) == threads * Self.increments)
        }
    }

    @Test func aHolderKilledWhileHoldingTheLockDoesNotBlockTheOthers() throws {
        try withTarget { target in
            let holder = recordLockPeer(["hold", "\(target)"])
            let stale = try heldLockKey(in: target)
            _ = holder.processIdentifier.map { kill($0, SIGKILL) }
            _ = try holder.wait(timeout: 10)
            let start = ContinuousClock.now
            let ran = try KeyringRecordLock(kernel: kernel, timeout: .seconds(2)).withLock(in: target) { true }
            #expect(ran)
            #expect(ContinuousClock.now - start < .seconds(2))
            #expect(try !kernel.contents(of: target).contains(stale), "the dead holder's lock key is still in the target")
        }
    }

    @Test func aKilledHolderHoldsTheLockUntilItsParentReapsIt() throws {
        try withTarget { target in
            // The peer forks a holder, kills it, and reaps it only once its stdin is closed.
            let parent = recordLockPeer(["zombie", "\(target)"], holdingInput: true)
            defer {
                parent.release(nil)
                _ = try? parent.wait(timeout: 10)
            }
            try waitUntil("the holder is killed") {
                (try? kernel.search(target, type: "user", description: "killed")) != nil
            }
            // Long past the moment a reaped holder's process keyring goes.
            usleep(200_000)
            expectKeychainError(errSecIO) {
                try KeyringRecordLock(kernel: kernel, timeout: .milliseconds(300)).withLock(in: target) {
                    Issue.record("the body ran while the holder was an unreaped zombie")
                }
            }
            parent.release(nil)
            let result = try parent.wait(timeout: 10)
            #expect(result.status == 0, "the peer failed: \(result.status) \(result.errorText)")
            let ran = try KeyringRecordLock(kernel: kernel, timeout: .seconds(2)).withLock(in: target) { true }
            #expect(ran)
        }
    }

    @Test func aLiveHolderMakesTheWaiterGiveUpAfterItsTimeout() throws {
        try withTarget { target in
            let holder = recordLockPeer(["hold", "\(target)"])
            defer {
                _ = holder.processIdentifier.map { kill($0, SIGKILL) }
                _ = try? holder.wait(timeout: 10)
            }
            let held = try heldLockKey(in: target)
            let start = ContinuousClock.now
            let error = expectKeychainError(errSecIO) {
                try KeyringRecordLock(kernel: kernel, timeout: .milliseconds(300)).withLock(in: target) {
                    Issue.record("the body ran while another process held the lock")
                }
            }
            let waited = ContinuousClock.now - start
            #expect(waited >= .milliseconds(300) && waited < .seconds(2), "waited \(waited)")
            let message = error?.message ?? ""
            #expect(message.contains("has held the record lock of keyring \(target)"), "\(message)")
            #expect(message.contains("'\(KeyringRecordLock.lockDescription(target))'"), "\(message)")
            #expect(message.contains("0.3 s"), "\(message)")
            #expect(try kernel.search(target, type: "user", description: KeyringRecordLock.lockDescription(target)) == held,
                    "the live holder's lock key was taken")
        }
    }

    /// A writer of an earlier release keeps its lock key in its thread keyring: alive while that
    /// keyring is, dead once its process is gone.
    @Test func aHolderOfAnEarlierReleaseIsAliveUntilItsProcessEnds() throws {
        try withTarget { target in
            let holder = recordLockPeer(["hold-in-thread-keyring", "\(target)"])
            let held = try heldLockKey(in: target)
            expectKeychainError(errSecIO) {
                try KeyringRecordLock(kernel: kernel, timeout: .milliseconds(300)).withLock(in: target) {
                    Issue.record("the body ran while a holder of an earlier release held the lock")
                }
            }
            _ = holder.processIdentifier.map { kill($0, SIGKILL) }
            _ = try holder.wait(timeout: 10)
            let ran = try KeyringRecordLock(kernel: kernel, timeout: .seconds(2)).withLock(in: target) { true }
            #expect(ran)
            #expect(try !kernel.contents(of: target).contains(held), "the dead holder's lock key is still in the target")
        }
    }

    @Test func aBodyThatThrowsLetsGoOfTheLock() throws {
        struct BodyFailure: Error {}
        try withTarget { target in
            let lock = KeyringRecordLock(kernel: kernel, timeout: .milliseconds(200))
            #expect(throws: BodyFailure.self) { try lock.withLock(in: target) { throw BodyFailure() } }
            #expect(throws: KeyctlFailure.self, "the lock key is still in the target") {
                try kernel.search(target, type: "user", description: KeyringRecordLock.lockDescription(target))
            }
            // Another thread gets it at once.
            let otherThread = Locked<Bool?>(nil)
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread { [kernel] in
                let ran = try? KeyringRecordLock(kernel: kernel, timeout: .milliseconds(200)).withLock(in: target) { true }
                otherThread.withLock { $0 = ran }
                done.signal()
            }
            done.wait()
            #expect(otherThread.withLock { $0 } == true)
        }
    }

    @Test func aLockTakenFromItsHolderIsReportedAndTheNextCallMakesANewKey() throws {
        try withTarget { target in
            let lock = KeyringRecordLock(kernel: kernel, timeout: .milliseconds(200))
            let description = KeyringRecordLock.lockDescription(target)
            // What a waiter does when it wrongly judges the holder dead.
            let error = expectKeychainError(errSecIO) {
                try lock.withLock(in: target) {
                    try kernel.invalidate(try kernel.search(target, type: "user", description: description))
                }
            }
            #expect(error?.message.contains("was taken from this thread while it held it") == true, "\(String(describing: error))")
            let ranAgain = try lock.withLock(in: target) { true }
            #expect(ranAgain)
        }
    }

    @Test func aLateWaiterFreeingADeadHoldersLockLeavesTheNewHoldersKey() throws {
        try withTarget { target in
            let lock = KeyringRecordLock(kernel: kernel, timeout: .milliseconds(200))
            let description = KeyringRecordLock.lockDescription(target)
            // A dead holder's lock key that another waiter has already taken out of the target,
            // and that still exists (here linked in a keyring of its own).
            let elsewhere = try kernel.addKeyring(uniqueService("elsewhere"), to: target)
            let stale = try Data("1".utf8).withUnsafeBytes { try kernel.addUserKey(description, payload: $0, to: elsewhere) }
            let ours = try lock.withLock(in: target) {
                // The late waiter acts on the stale key while this thread holds the lock.
                lock.takeFromDeadHolder(stale)
                return try kernel.search(target, type: "user", description: description)
            }
            #expect(ours != stale)
        }
    }

    // MARK: - Helpers

    static let increments = 150

    /// Runs `body` with a fresh keyring linked in the session keyring, which every thread and
    /// child process possesses.
    private func withTarget(_ body: (key_serial_t) throws -> Void) throws {
        try kernel.withSessionKeyring("lock", body)
    }

    private func makeCounter(in target: key_serial_t) throws -> key_serial_t {
        try Data("0".utf8).withUnsafeBytes { try kernel.addUserKey("counter", payload: $0, to: target) }
    }

    private func count(_ counter: key_serial_t) throws -> Int? {
        Int(String(decoding: try kernel.readPublicPayload(counter), as: UTF8.self))
    }

    /// One read-modify-write of `counter`, which loses increments unless the writers exclude each other.
    private func increment(_ counter: key_serial_t) throws { try Self.increment(counter, kernel) }

    private static func increment(_ counter: key_serial_t, _ kernel: KernelKeys) throws {
        let value = Int(String(decoding: try kernel.readPublicPayload(counter), as: UTF8.self)) ?? -1_000_000
        try Data(String(value + 1).utf8).withUnsafeBytes { try kernel.update(counter, payload: $0) }
    }

    /// The serial of the lock key in `target`, once a peer has taken the lock.
    private func heldLockKey(in target: key_serial_t) throws -> key_serial_t {
        var held: key_serial_t?
        try waitUntil("the peer holds the lock") {
            held = try? kernel.search(target, type: "user", description: KeyringRecordLock.lockDescription(target))
            return held != nil
        }
        return try #require(held)
    }

    private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                throw CancellationError()
            }
            usleep(1000)
        }
    }
}

/// Another process taking the record lock by the same protocol, in Python over libkeyutils:
/// - `count TARGET COUNTER M INDEX`: marks itself ready (a key `ready-INDEX` in TARGET), waits
///   for a key `go`, then makes M read-modify-write increments of the `user` key COUNTER, each
///   under the lock;
/// - `hold TARGET`: takes the lock and keeps it until it is killed (at most 30 s);
///   `hold-in-thread-keyring TARGET` likewise with a lock key in its thread keyring, as earlier releases kept them;
/// - `zombie TARGET`: forks a child that takes the lock and keeps it, kills the child with
///   SIGKILL once it holds the lock, marks that (a key `killed` in TARGET), and reaps it only
///   when its own stdin is closed.
/// Its signal mask is cleared first: the test process hands its children blocked signals.
private func recordLockPeer(_ arguments: [String], holdingInput: Bool = false) -> KeychainCLIProcess {
    KeychainCLIProcess("/usr/bin/env", ["python3", "-c", recordLockPeerScript] + arguments, holdingInput: holdingInput)
}

private let recordLockPeerScript = #"""
import ctypes, errno, os, signal, sys, time
signal.pthread_sigmask(signal.SIG_SETMASK, [])
k = ctypes.CDLL("libkeyutils.so.1", use_errno=True)
PROCESS = -2  # KEY_SPEC_PROCESS_KEYRING
def check(result):
    if result == -1:
        code = ctypes.get_errno()
        raise OSError(code, "keyctl failed")
    return result
def read(key):
    buffer = ctypes.create_string_buffer(256)
    length = check(k.keyctl_read(key, buffer, 256))
    return buffer.raw[:length]
mode, target = sys.argv[1], int(sys.argv[2])
description = b"linux-keychain:lock:%d" % target
if mode == "hold-in-thread-keyring":  # as earlier releases did
    mode, PROCESS = "hold", -1  # KEY_SPEC_THREAD_KEYRING
if mode == "zombie":
    child = os.fork()
    if child == 0:
        mode = "hold"
    else:
        while k.keyctl_search(target, b"user", description, 0) == -1:
            time.sleep(0.001)
        os.kill(child, signal.SIGKILL)
        check(k.add_key(b"user", b"killed", b"1", 1, target))
        sys.stdin.read()
        os.waitpid(child, 0)
        sys.exit(0)
holder = b"%d" % check(k.keyctl_get_keyring_ID(PROCESS, 1))
lock = check(k.add_key(b"user", description, holder, len(holder), PROCESS))
check(k.keyctl_setperm(lock, 0x3d000000))  # possessor view, read, search, link
def invalidate_if_holder_is_dead():
    held = k.keyctl_search(target, b"user", description, 0)
    if held == -1:
        return
    try:
        ring = int(read(held))
    except (OSError, ValueError):
        return
    text = ctypes.create_string_buffer(512)
    if k.keyctl_describe(ring, text, 512) == -1:
        dead = ctypes.get_errno() in (errno.ENOKEY, errno.EKEYREVOKED, errno.EKEYEXPIRED)
    else:
        fields = text.value.split(b";", 4)
        dead = fields[0] != b"keyring" or fields[-1] not in (b"_pid", b"_tid")
    if dead:
        k.keyctl_invalidate(held)
def acquire():
    pause = 20e-6
    while k.keyctl_move(lock, PROCESS, target, 1) == -1:  # KEYCTL_MOVE_EXCL
        if ctypes.get_errno() != errno.EEXIST:
            check(-1)
        invalidate_if_holder_is_dead()
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)
def release():
    check(k.keyctl_move(lock, target, PROCESS, 0))
if mode == "hold":
    acquire()
    time.sleep(30)
elif mode == "count":
    counter, increments, index = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    check(k.add_key(b"user", b"ready-" + index.encode(), b"1", 1, target))
    while k.keyctl_search(target, b"user", b"go", 0) == -1:
        time.sleep(0.001)
    for _ in range(increments):
        acquire()
        value = int(read(counter)) + 1
        text = b"%d" % value
        check(k.keyctl_update(counter, text, len(text)))
        release()
"""#
