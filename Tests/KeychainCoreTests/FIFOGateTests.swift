import Dispatch
import Foundation
import KeychainCore
import Testing

@Suite("the FIFO gate in front of the per-user locks")
struct FIFOGateTests {
    /// Starts a thread that enters `gate`, notes `index` in `order`, and leaves after `holding` seconds.
    func enter(_ gate: FIFOGate, _ index: Int, _ order: Locked<[Int]>, stalledAfter: Double = 5,
               holding: Double = 0, done: DispatchGroup) {
        done.enter()
        Thread {
            if gate.enter(stalledAfter: stalledAfter) {
                order.withLock { $0.append(index) }
                Thread.sleep(forTimeInterval: holding)
                gate.leave()
            } else {
                order.withLock { $0.append(-index - 1) }
            }
            done.leave()
        }.start()
    }

    func waitUntil(_ condition: () -> Bool) {
        let end = Date().addingTimeInterval(10)
        while !condition() && Date() < end { usleep(1_000) }
    }

    @Test func threadsGoInTheOrderTheyArrived() {
        let gate = FIFOGate()
        #expect(gate.enter(stalledAfter: 1))
        let order = Locked<[Int]>([])
        let done = DispatchGroup()
        for index in 0..<16 {
            enter(gate, index, order, done: done)
            waitUntil { gate.waiting == index + 1 }
        }
        gate.leave()
        done.wait()
        #expect(order.withLock { $0 } == Array(0..<16))
    }

    /// A line that keeps moving is waited out however long it is; a stuck one is given up on,
    /// and the thread that gave up is never handed the turn later.
    @Test func aWaiterGivesUpOnlyWhenTheGateStopsMoving() {
        let gate = FIFOGate()
        let order = Locked<[Int]>([])
        let moving = DispatchGroup()
        // Five threads each inside for 0.1 s: the last waits about 0.4 s, longer than its 0.25 s.
        for index in 0..<5 {
            enter(gate, index, order, stalledAfter: 0.25, holding: 0.1, done: moving)
            waitUntil { gate.waiting == index || order.withLock { !$0.isEmpty } }
        }
        moving.wait()
        #expect(order.withLock { $0 }.sorted() == Array(0..<5), "\(order.withLock { $0 })")

        #expect(gate.enter(stalledAfter: 1))
        let stuck = Locked<[Int]>([])
        let giving = DispatchGroup()
        let started = Date()
        enter(gate, 0, stuck, stalledAfter: 0.2, done: giving)
        giving.wait()
        #expect(stuck.withLock { $0 } == [-1], "the waiter got in past a holder that never left")
        #expect(Date().timeIntervalSince(started) >= 0.19)
        gate.leave()
        #expect(gate.waiting == 0)
        #expect(gate.enter(stalledAfter: 0.2), "the gate stayed shut for the thread that gave up")
        gate.leave()
    }

    /// A holder that waits on something moving (other processes' turns at a lock) says so, and
    /// the thread behind it waits on past its own `stalledAfter`; without that it gives up.
    @Test func aHolderNotingProgressKeepsTheLineWaiting() {
        for noting in [true, false] {
            let gate = FIFOGate()
            #expect(gate.enter(stalledAfter: 1))
            let order = Locked<[Int]>([])
            let done = DispatchGroup()
            enter(gate, 0, order, stalledAfter: 0.2, done: done)
            waitUntil { gate.waiting == 1 }
            // Inside for 0.6 s, three times the waiter's 0.2 s.
            for _ in 0..<6 {
                Thread.sleep(forTimeInterval: 0.1)
                if noting { gate.noteProgress() }
            }
            gate.leave()
            done.wait()
            #expect(order.withLock { $0 } == (noting ? [0] : [-1]), "noting progress: \(noting)")
        }
    }
}
