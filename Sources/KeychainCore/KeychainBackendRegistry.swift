import Foundation

/// The process-wide list of backends and the choice among them, like swift-log's
/// `LoggingSystem`.
///
/// Built-in backends and the application's own are registered the same way, so a third-party
/// backend is selected through `KEYCHAIN_BACKEND` like a built-in one. The choice is made on
/// first use, from `use(_:)` if the program called it, else from `KEYCHAIN_BACKEND`, else
/// `auto`; a successful choice is kept for the life of the process.
public final class KeychainBackendRegistry: @unchecked Sendable {
    /// The variable that selects the backend.
    public static let selectionVariable = "KEYCHAIN_BACKEND"
    public static let automaticName = "auto"

    public static let shared = KeychainBackendRegistry()

    // All mutable state is guarded by `lock`; the unchecked Sendable relies on it.
    private let lock = NSLock()
    private var factories: [String: @Sendable () -> any KeychainBackend] = [:]
    private var registrationOrder: [String] = []
    private var automaticOrder: [String] = []
    private var automaticRanks: [String: Int] = [:]
    private var instances: [String: any KeychainBackend] = [:]
    private var chosen: (any KeychainBackend)?

    public init() {}

    /// Adds a backend under `name`. `automaticRank` places it in `auto`'s order (lower first);
    /// nil keeps it out of `auto`, so it is used only when named. Registering a name again
    /// replaces the earlier factory.
    public func register(_ name: String, automaticRank: Int? = nil,
                         factory: @escaping @Sendable () -> any KeychainBackend) {
        lock.withLock {
            if factories[name] == nil { registrationOrder.append(name) }
            factories[name] = factory
            instances[name] = nil
            automaticOrder.removeAll { $0 == name }
            if let automaticRank {
                automaticRanks[name] = automaticRank
                automaticOrder.append(name)
                automaticOrder.sort { automaticRanks[$0, default: 0] < automaticRanks[$1, default: 0] }
            }
        }
    }

    /// Every registered name, in registration order.
    public var names: [String] { lock.withLock { registrationOrder } }

    /// The names `auto` tries, in order.
    public var automaticNames: [String] { lock.withLock { automaticOrder } }

    /// The one instance of the backend registered as `name`.
    /// Throws `errSecParam` naming the valid choices when no such backend exists.
    public func backend(named name: String) throws -> any KeychainBackend {
        try lock.withLock {
            if let existing = instances[name] { return existing }
            guard let factory = factories[name] else {
                let valid = ([Self.automaticName] + registrationOrder).joined(separator: ", ")
                throw KeychainError(errSecParam, "Unknown keychain backend '\(name)'. Valid backends: \(valid).")
            }
            let made = factory()
            instances[name] = made
            return made
        }
    }

    /// Chooses the backend in code, overriding `KEYCHAIN_BACKEND`.
    public func use(_ backend: any KeychainBackend) {
        lock.withLock { chosen = backend }
    }

    /// Forgets the choice, so the next use selects again (for tests and long-lived tools).
    public func resetChoice() {
        lock.withLock { chosen = nil }
    }

    /// The backend in use: the one chosen in code, else the one `KEYCHAIN_BACKEND` names
    /// (`auto` when unset or empty). A named backend that cannot run is an error with its
    /// reason; the library never falls back to another one.
    public func current() throws -> any KeychainBackend {
        if let chosen = lock.withLock({ chosen }) { return chosen }
        let selection = ProcessInfo.processInfo.environment[Self.selectionVariable] ?? ""
        let backend = try select(selection.isEmpty ? Self.automaticName : selection)
        lock.withLock { if chosen == nil { chosen = backend } }
        return lock.withLock { chosen! }
    }

    /// Resolves a selection name (`auto` or a backend name) to a usable backend.
    public func select(_ selection: String) throws -> any KeychainBackend {
        if selection == Self.automaticName { return try automaticChoice().get() }
        let backend = try backend(named: selection)
        if case .unavailable(let reason) = backend.availability() {
            throw reason.attributed(to: backend.name)
        }
        return backend
    }

    /// What `auto` finds: the first usable backend in order, or an error listing every
    /// backend tried and why each could not be used.
    public func automaticChoice() -> Result<any KeychainBackend, KeychainError> {
        automaticChoice { $0.availability() }
    }

    /// Every registered backend with its availability, and what `auto` picks, checking each
    /// backend's availability once (a check can take a backend's whole timeout, such as a
    /// Secret Service provider that does not answer). For `keychain backends`.
    public func survey() -> BackendSurvey {
        var found: [(name: String, backend: any KeychainBackend, availability: BackendAvailability)] = []
        for name in names {
            guard let backend = try? backend(named: name) else { continue }
            found.append((name, backend, backend.availability()))
        }
        let automatic = automaticChoice { backend in
            found.first { $0.backend === backend }?.availability ?? backend.availability()
        }
        return BackendSurvey(backends: found.map { ($0.name, $0.availability) }, automaticChoice: automatic)
    }

    private func automaticChoice(availability: (any KeychainBackend) -> BackendAvailability) -> Result<any KeychainBackend, KeychainError> {
        var reasons: [String] = []
        for name in automaticNames {
            guard let backend = try? backend(named: name) else { continue }
            switch availability(backend) {
            case .available: return .success(backend)
            case .unavailable(let reason):
                let message = reason.message.hasSuffix(".") ? String(reason.message.dropLast()) : reason.message
                reasons.append("\(name): \(message)")
            }
        }
        let tried = reasons.isEmpty ? "no backend is registered for automatic selection" : reasons.joined(separator: "; ")
        return .failure(KeychainError(errSecNotAvailable,
            "No keychain backend is usable here (tried \(tried)). Set \(Self.selectionVariable) to a backend that works here, e.g. 'file' with KEYCHAIN_FILE_PASSPHRASE_FILE."))
    }
}

/// What `KeychainBackendRegistry.survey()` found.
public struct BackendSurvey: Sendable {
    /// Every registered backend, in registration order, with its availability.
    public let backends: [(name: String, availability: BackendAvailability)]
    /// What `auto` picks, from those same availabilities.
    public let automaticChoice: Result<any KeychainBackend, KeychainError>
}
