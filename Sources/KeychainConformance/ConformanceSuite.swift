import Foundation
public import KeychainCore

/// One check of the backend contract in `KeychainBackend`'s doc comment.
///
/// Run every case in `KeychainConformance.cases` against a backend, for example as a
/// parameterized Swift Testing test. A case throws `ConformanceFailure` when the backend
/// breaks the contract and `ConformanceSkip` when it cannot be checked here (with the reason).
///
/// Authors of a backend can write cases of their own with the same helpers the suite uses
/// (`expect`, `expectStatus`, `genericItem`, `exactQuery`, `serviceQuery`, `storedSecret`,
/// `expectSecret`) and run them the same way.
public struct ConformanceCase: Sendable, CustomStringConvertible {
    /// What the case checks, for test names and failure messages.
    public let name: String
    /// What the backend must offer for this case to apply; see `KeychainConformance.cases(without:)`.
    public let needs: Set<ConformanceNeed>
    /// True for a case that loads the backend on purpose (`thread-pool`): it runs while no
    /// other case of this process does, so that its load pushes no other case past a timeout.
    public let runsAlone: Bool
    let body: @Sendable (any KeychainBackend, ConformanceContext) throws -> Void

    /// A case named `name` (unique within a suite; it also names the case's items) that runs
    /// `body` with a backend and a context whose `service(_:)` names are removed afterwards.
    public init(name: String, needs: Set<ConformanceNeed> = [], runsAlone: Bool = false,
                body: @escaping @Sendable (any KeychainBackend, ConformanceContext) throws -> Void) {
        self.name = name
        self.needs = needs
        self.runsAlone = runsAlone
        self.body = body
    }

    /// The case's name.
    public var description: String { name }

    /// Runs the case, with items named under a fresh namespace, and deletes them afterwards.
    public func run(on backend: any KeychainBackend, context: ConformanceContext) throws {
        try CaseExclusion.shared.run(alone: runsAlone) {
            let scoped = context.scoped(to: name)
            defer { scoped.removeEverything(from: backend) }
            try body(backend, scoped)
        }
    }
}

/// A contract violation, with what was expected.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// What happened, for the test log.
    public let description: String
    /// An error described by `description`.
    public init(_ description: String) { self.description = description }
}

/// A case that cannot run here; the text says why.
public struct ConformanceSkip: Error, CustomStringConvertible {
    /// What happened, for the test log.
    public let description: String
    /// An error described by `description`.
    public init(_ description: String) { self.description = description }
}

/// Where a conformance run may put its items and how it reaches other processes.
public struct ConformanceContext: Sendable {
    /// The backend name the `linux-keychain` CLI accepts in `--backend`, for the many-process case.
    public var backendName: String
    /// The built `linux-keychain` executable, or nil to skip the many-process case (unless
    /// `processes` is given).
    public var cliPath: String?
    /// Extra environment for CLI processes (the backend's settings).
    public var environment: [String: String]
    /// Prefix of every service name a case uses, unique per run.
    public private(set) var namespace: String
    private let usedServices = ServiceLedger()
    private var chosenProcesses: ConformanceProcesses?

    /// A context whose other processes are this package's `linux-keychain` CLI at `cliPath`.
    public init(backendName: String, cliPath: String? = ConformanceContext.locateCLI(),
                environment: [String: String] = [:]) {
        self.backendName = backendName
        self.cliPath = cliPath
        self.environment = environment
        self.namespace = "lkc-conformance-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// A context whose other processes come from `processes`, for a backend the `linux-keychain`
    /// CLI cannot load; nil skips the many-process case with a reason.
    public init(backendName: String, processes: ConformanceProcesses?) {
        self.init(backendName: backendName, cliPath: nil)
        chosenProcesses = processes
    }

    /// How the many-process case starts other processes: those given to the initializer, else
    /// the `linux-keychain` CLI at `cliPath` with `environment`, else nil (the case is skipped).
    public var processes: ConformanceProcesses? {
        chosenProcesses ?? cliPath.map { .keychainCLI($0, backendName: backendName, environment: environment) }
    }

    func scoped(to caseName: String) -> ConformanceContext {
        var copy = self
        copy.namespace = "\(namespace)-\(caseName)"
        return copy
    }

    /// A service name inside this run's namespace; everything under it is deleted afterwards.
    public func service(_ suffix: String = "") -> String {
        let name = suffix.isEmpty ? namespace : "\(namespace)-\(suffix)"
        usedServices.note(name)
        return name
    }

    func removeEverything(from backend: any KeychainBackend) {
        // Each name was used as a service, a server or a key's tag.
        for itemClass in ItemClass.allCases {
            let group = itemClass.nameAttributes.group
            for name in usedServices.all {
                let value = AttributeValue(nameText: name, kind: group.valueKind)
                let query = ItemQuery(itemClass: itemClass, constraints: ItemAttributes([group: value]),
                                      matchesAnySynchronizable: true)
                _ = try? backend.delete(query)
            }
        }
    }

    /// The `linux-keychain` executable beside the running test binary, or `KEYCHAIN_CLI` if set.
    public static func locateCLI() -> String? {
        if let explicit = ProcessInfo.processInfo.environment["KEYCHAIN_CLI"] { return explicit }
        return locateExecutable(named: "linux-keychain")
    }

    /// The executable `name` built beside the running test binary (SwiftPM puts a package's
    /// executables and its test binary in one folder), or nil.
    public static func locateExecutable(named name: String) -> String? {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        // The XCTest bundle on Linux is a plain executable; walk up past any bundle folders.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }
}

/// The services a case used, shared by copies of its context.
final class ServiceLedger: Sendable {
    private let names = Locked<Set<String>>([])
    func note(_ name: String) { _ = names.withLock { $0.insert(name) } }
    var all: [String] { names.withLock { Array($0) } }
}
