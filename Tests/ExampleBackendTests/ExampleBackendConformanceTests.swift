import ExampleBackend
import Foundation
import KeychainConformance
import KeychainCore
import Testing

/// The example third-party backend passes every case of the suite, the many-process one
/// included: its processes are its own helper executable, given through `ConformanceProcesses`
/// as a third-party author would (the `linux-keychain` CLI cannot load this backend).
@Suite("example third-party backend conformance")
struct ExampleBackendConformanceTests {
    @Test(arguments: KeychainConformance.cases)
    func conformance(_ testCase: ConformanceCase) throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let backend = PlainFileBackend(directory: directory)
        let context = ConformanceContext(backendName: backend.name,
                                         processes: .helper(try Self.helper(), arguments: [directory]))
        if case .skipped(let reason) = try testCase.outcome(on: backend, context: context) {
            try Test.cancel(Comment(rawValue: reason))
        }
    }

    /// The other form of the hook: a closure that starts each process itself.
    @Test func theManyProcessCasePassesWithAClosureThatStartsTheProcesses() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let helper = try Self.helper()
        let started = StartedProcesses()
        let processes = ConformanceProcesses { request in
            started.count()
            return KeychainCLIProcess(helper, [directory] + request.arguments, holdingInput: true)
        }
        let testCase = try #require(KeychainConformance.cases.first { $0.needs.contains(.sharedAcrossProcesses) })
        let outcome = try testCase.outcome(on: PlainFileBackend(directory: directory),
                                           context: ConformanceContext(backendName: "example-plain-file", processes: processes),
                                           requireAll: true)
        #expect(outcome == .passed)
        #expect(started.total == 17, "8 writers, 1 reader and 8 racers")
    }

    /// Processes that claim success without storing anything fail the case: it checks what
    /// they did, not what they say.
    @Test func theManyProcessCaseFailsWhenTheProcessesDoNothing() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let idle = ConformanceProcesses { _ in KeychainCLIProcess("/bin/true", [], holdingInput: true) }
        let testCase = try #require(KeychainConformance.cases.first { $0.needs.contains(.sharedAcrossProcesses) })
        #expect(throws: ConformanceFailure.self) {
            _ = try testCase.outcome(on: PlainFileBackend(directory: directory),
                                     context: ConformanceContext(backendName: "example-plain-file", processes: idle))
        }
    }

    /// The helper fails when the store does not behave, so the passes above mean something.
    @Test func theHelperReportsNotFoundAndDuplicateByExitStatus() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let helper = try Self.helper()
        #expect(try KeychainCLIProcess.run(helper, [directory, "get", "s", "a"]).status == CLIExit.notFound)
        #expect(try KeychainCLIProcess.run(helper, [directory, "add", "s", "a"], input: Data("x".utf8)).status == 0)
        #expect(try KeychainCLIProcess.run(helper, [directory, "add", "s", "a"], input: Data("y".utf8)).status == CLIExit.duplicate)
        #expect(try KeychainCLIProcess.run(helper, [directory, "get", "s", "a"]).output == Data("x".utf8))
    }

    static func helper() throws -> String {
        guard let path = ConformanceContext.locateExecutable(named: "ExampleBackendHelper") else {
            throw ConformanceFailure("ExampleBackendHelper was not built beside the tests; build with `swift build --build-tests`")
        }
        return path
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lkc-example-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return path
    }
}

/// Counted under an `NSLock`, as an author outside this package would (KeychainCore's `Locked`
/// is the package's own); it is a pthread mutex, which ThreadSanitizer sees.
final class StartedProcesses: @unchecked Sendable {
    private let lock = NSLock()
    private var started = 0
    func count() { lock.withLock { started += 1 } }
    var total: Int { lock.withLock { started } }
}
