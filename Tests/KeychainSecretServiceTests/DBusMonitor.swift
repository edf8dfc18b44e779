import Foundation
import Testing

/// What dbus-monitor printed on the session bus (the test's private one) while a body ran.
enum DBusMonitor {
    /// The lines dbus-monitor printed for the messages matching `matchRule` (every message
    /// when nil) that were sent while `body` ran. Cancels the test when dbus-monitor is missing.
    static func lines(matching matchRule: String? = nil, during body: () throws -> Void) throws -> [String] {
        guard toolExists("dbus-monitor") else { try Test.cancel("dbus-monitor is not installed") }
        let output = SecretServiceTestSupport.scratchDirectory("monitor")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let monitor = Process()
        monitor.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Through Python, which unblocks the signals the test process blocks, so that
        // dbus-monitor ends when it is told to.
        let unblockAndRun = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"
        monitor.arguments = ["python3", "-c", unblockAndRun, "dbus-monitor", "--session"] + (matchRule.map { [$0] } ?? [])
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
}
