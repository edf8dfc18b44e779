import Foundation
import KeychainTestSupport
import Testing

/// What dbus-monitor printed on the session bus (the test's private one) while a body ran.
enum DBusMonitor {
    /// The lines dbus-monitor printed for the messages matching `matchRule` (every message
    /// when nil) that were sent while `body` ran. Cancels the test when dbus-monitor is missing.
    static func lines(matching matchRule: String? = nil, during body: () throws -> Void) throws -> [String] {
        guard toolExists("dbus-monitor") else { try Test.cancel("dbus-monitor is not installed") }
        let output = scratchPath("lkc-ss-monitor")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let monitor = Process()
        // With no signal blocked, so that dbus-monitor ends when it is told to.
        monitor.executableURL = URL(fileURLWithPath: UnblockedSignals.launcher)
        monitor.arguments = UnblockedSignals.arguments(["dbus-monitor", "--session"] + (matchRule.map { [$0] } ?? []))
        monitor.standardOutput = try FileHandle(forWritingTo: output)
        monitor.standardError = FileHandle.nullDevice
        try monitor.run()
        defer {
            monitor.terminate()
            monitor.waitUntilExit()
        }
        // dbus-monitor prints the bus's NameAcquired signal once it watches.
        let ready = Date().addingTimeInterval(5)
        while (try? Data(contentsOf: output))?.isEmpty ?? true, Date() < ready { usleep(20_000) }
        usleep(100_000)
        try body()
        // What the bus has forwarded before this returns is in the file shortly after.
        usleep(300_000)
        return String(decoding: try Data(contentsOf: output), as: UTF8.self).components(separatedBy: "\n")
    }

    /// What the bus carried while `body(attempt)` ran, for a test that must see requests go
    /// out together: the first of up to `tries` runs in which `sentTogether` holds, else the
    /// last. The bus daemon forwards messages in the order they reach it, and on a busy machine
    /// a client can be descheduled between two sends, so that the answer to the first request
    /// reaches the bus before the second request does. Code that waits for an answer before it
    /// sends the next request never shows them together, in any run; code that sends them at
    /// once shows it in nearly every run.
    static func bus(tries: Int = 5, during body: (_ attempt: Int) throws -> Void,
                    showing sentTogether: (BusLines) -> Bool) throws -> BusLines {
        var seen = BusLines([])
        for attempt in 0..<tries {
            seen = BusLines(try lines { try body(attempt) })
            if sentTogether(seen) { break }
        }
        return seen
    }
}

/// dbus-monitor's lines, read as method calls and their answers.
struct BusLines {
    struct Call: Equatable {
        let index: Int
        let sender: String
        let serial: String
    }

    let lines: [String]

    init(_ lines: [String]) { self.lines = lines }

    /// Which object a call is for.
    enum Object {
        case any
        /// An item: a path below a collection's (`/org/freedesktop/secrets/collection/NAME/ID`).
        case item
        /// A collection (`/org/freedesktop/secrets/collection/NAME`).
        case collection
    }

    /// The first call of `member` (from `sender`, when given) to `object`.
    func firstCall(_ member: String, from sender: String? = nil, to object: Object = .any) -> Call? {
        for (index, line) in lines.enumerated() where line.hasPrefix("method call") && line.hasSuffix("member=\(member)") {
            guard let caller = field("sender", of: line), let serial = field("serial", of: line) else { continue }
            if let sender, caller != sender { continue }
            let depth = field("path", of: line)?.split(separator: "/").count ?? 0
            switch object {
            case .any: break
            case .item: if depth < 6 { continue }
            case .collection: if depth != 5 { continue }
            }
            return Call(index: index, sender: caller, serial: serial)
        }
        return nil
    }

    /// Whether the first call of `later` (to `object`), from the sender of the first call of
    /// `earlier`, went out after that call and before its answer came.
    func sent(_ later: String, to object: Object = .any, whileAwaiting earlier: String) -> Bool {
        guard let first = firstCall(earlier), let answered = reply(to: first),
              let second = firstCall(later, from: first.sender, to: object) else { return false }
        return first.index < second.index && second.index < answered
    }

    /// The method calls `sender` made after line `start`, as "member path" (path without its
    /// semicolon), and how many waits they took: a call sent while none of the sender's earlier
    /// calls is unanswered starts a new wait, one sent while some are joins theirs.
    func requests(from sender: String, after start: Int) -> (calls: [String], waits: Int) {
        var calls: [String] = []
        var waits = 0
        var unanswered: Set<String> = []
        for line in lines.dropFirst(start + 1) {
            if line.hasPrefix("method call"), field("sender", of: line) == sender, let serial = field("serial", of: line) {
                if unanswered.isEmpty { waits += 1 }
                unanswered.insert(serial)
                calls.append("\(line.split(separator: "=").last ?? "") \(field("path", of: line) ?? "")")
            } else if line.hasPrefix("method return") || line.hasPrefix("error"),
                      field("destination", of: line) == sender, let serial = field("reply_serial", of: line) {
                unanswered.remove(serial)
            }
        }
        return (calls, waits)
    }

    /// The line index of the answer (a return or an error) to `call`.
    func reply(to call: Call) -> Int? {
        lines.indices.first { index in
            let line = lines[index]
            return (line.hasPrefix("method return") || line.hasPrefix("error"))
                && field("destination", of: line) == call.sender && field("reply_serial", of: line) == call.serial
        }
    }

    /// The value of `name=value` among the line's words, without a trailing semicolon.
    private func field(_ name: String, of line: String) -> String? {
        for word in line.split(separator: " ") where word.hasPrefix("\(name)=") {
            return String(word.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: ";"))
        }
        return nil
    }
}
