import Foundation
import KeychainTestSupport
import KeychainConformance
import Testing

/// A nested `dbus-run-session` with its own fresh HOME and XDG directories, in which a shell
/// script runs the `linux-keychain` CLI; for the headless cases, which need a bus in a state the
/// shared test bus is not in.
struct PrivateSession {
    /// One CLI run inside the session.
    struct Run {
        let status: Int32
        let milliseconds: Int
        let errorText: String
        let output: String
    }

    let directory: URL
    let cli: String

    init() throws {
        guard toolExists("dbus-run-session") else {
            try skipOrFail("dbus-run-session is not installed")
        }
        cli = try SecretServiceTestSupport.cli()
        directory = scratchPath("lkc-ss-session")
        for sub in ["home", "runtime"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// Runs `setup` (shell lines) and then `linux-keychain ARGUMENTS` in a new session bus, and
    /// returns the CLI's exit status, its duration as measured inside the session, and its
    /// output. `configFile` replaces the bus configuration; `environment` adds variables.
    func runCLI(_ arguments: [String], setup: String = "", configFile: String? = nil,
                environment: [String: String] = [:]) throws -> Run {
        let errorFile = directory.appendingPathComponent("stderr").path
        let outputFile = directory.appendingPathComponent("stdout").path
        let quoted = ([cli] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let script = """
            set -u
            \(setup)
            start=$(date +%s%N)
            \(quoted) >'\(outputFile)' 2>'\(errorFile)' </dev/null
            status=$?
            end=$(date +%s%N)
            echo "status=$status"
            echo "ms=$(( (end - start) / 1000000 ))"
            """
        let scriptFile = directory.appendingPathComponent("run.sh")
        try script.write(to: scriptFile, atomically: true, encoding: .utf8)

        let home = directory.appendingPathComponent("home").path
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        env["HOME"] = home
        env["XDG_DATA_HOME"] = home + "/.local/share"
        env["XDG_CONFIG_HOME"] = home + "/.config"
        env["XDG_CACHE_HOME"] = home + "/.cache"
        env["XDG_STATE_HOME"] = home + "/.local/state"
        env["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        env.merge(environment) { _, new in new }
        var sessionArguments: [String] = []
        if let configFile { sessionArguments.append("--config-file=\(configFile)") }
        sessionArguments += ["--", "bash", scriptFile.path]
        let session = try runTool("dbus-run-session", sessionArguments, environment: env)

        var status: Int32?
        var milliseconds: Int?
        for line in session.outputText.split(separator: "\n") {
            if line.hasPrefix("status=") { status = Int32(line.dropFirst(7)) }
            if line.hasPrefix("ms=") { milliseconds = Int(line.dropFirst(3)) }
        }
        guard let status, let milliseconds else {
            throw ConformanceFailure("the private session did not run the CLI: \(session.outputText) \(session.errorText)")
        }
        return Run(status: status, milliseconds: milliseconds,
                   errorText: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "",
                   output: (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "")
    }

    /// A session bus configuration with no service directories: a bus without any provider.
    func busConfigurationWithoutServices() throws -> String {
        let file = directory.appendingPathComponent("no-services.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:tmpdir=/tmp</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}
