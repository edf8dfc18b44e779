import FoundationEssentials
import Glibc

/// The process-wide list of backends and the choice among them, like swift-log's
/// `LoggingSystem`.
///
/// Built-in backends and a program's own are registered the same way and selected by name
/// through `KEYCHAIN_BACKEND`; a program's registration always wins over a built-in of the
/// same name. The choice is made on first use and kept: `use(_:)`, then `KEYCHAIN_BACKEND`,
/// the user's and the machine's configuration files, the choice `auto` recorded at the first
/// write, and last `auto`'s order. A chosen backend that cannot run is an error with its
/// reason; the library never falls back to another one. (The order in full: the
/// registry's page in KeychainCore's documentation, and docs/placement.md.)
public final class KeychainBackendRegistry: Sendable {
    /// The variable that selects the backend.
    public static let selectionVariable = "KEYCHAIN_BACKEND"
    /// The selection that picks the first usable backend in the automatic order: `auto`.
    public static let automaticName = "auto"

    /// The registry the library uses, with the process's configuration files and record, read
    /// from the environment as it is at each selection.
    public static let shared = KeychainBackendRegistry(placementSource: { BackendPlacement() })

    /// Where pins, settings and the recorded choice come from; nil for none (a registry that
    /// only knows what is registered in it and `KEYCHAIN_BACKEND`).
    package var placement: BackendPlacement? { placementSource() }
    private let placementSource: @Sendable () -> BackendPlacement?

    /// Everything registered, made, chosen and recorded: the registry's only mutable state.
    private struct State {
        var factories: [String: @Sendable () -> any KeychainBackend] = [:]
        var registrationOrder: [String] = []
        var automaticOrder: [String] = []
        var automaticRanks: [String: Int] = [:]
        var instances: [String: any KeychainBackend] = [:]
        var chosen: BackendSelection?
        var recorded = false

        mutating func store(_ name: String, automaticRank: Int?, factory: @escaping @Sendable () -> any KeychainBackend) {
            if factories[name] == nil { registrationOrder.append(name) }
            factories[name] = factory
            // The instance made under this name, which a backend's own `name` need not match.
            let replaced = instances.removeValue(forKey: name)
            if let chosen, chosen.source != .code, replaced.map({ $0 === chosen.backend }) ?? (chosen.backend.name == name) {
                self.chosen = nil
            }
            automaticOrder.removeAll { $0 == name }
            if let automaticRank {
                automaticRanks[name] = automaticRank
                automaticOrder.append(name)
                automaticOrder.sort { automaticRanks[$0, default: 0] < automaticRanks[$1, default: 0] }
            }
        }
    }

    private let state = Locked(State())

    /// An empty registry, for tests and programs that manage their own: it knows only what
    /// is registered in it, `use(_:)` and `KEYCHAIN_BACKEND`, and no configuration file.
    public convenience init() {
        self.init(placement: nil)
    }

    /// An empty registry with `placement`'s pins and record, or none.
    package init(placement: BackendPlacement?) {
        placementSource = { placement }
    }

    private init(placementSource: @escaping @Sendable () -> BackendPlacement?) {
        self.placementSource = placementSource
    }

    /// Adds a backend under `name`. `automaticRank` places it in `auto`'s order (lower first);
    /// nil keeps it out of `auto`, so it is used only when named. Registering a name again
    /// replaces the earlier factory, and a choice of the old backend is forgotten.
    public func register(_ name: String, automaticRank: Int? = nil,
                         factory: @escaping @Sendable () -> any KeychainBackend) {
        state.withLock { $0.store(name, automaticRank: automaticRank, factory: factory) }
    }

    /// Adds a backend under `name` only if nothing is registered under it yet: how built-ins
    /// are registered, so that they never replace a program's own.
    public func registerDefault(_ name: String, automaticRank: Int? = nil,
                                factory: @escaping @Sendable () -> any KeychainBackend) {
        state.withLock {
            guard $0.factories[name] == nil else { return }
            $0.store(name, automaticRank: automaticRank, factory: factory)
        }
    }

    /// Every registered name, in registration order.
    public var names: [String] { state.withLock { $0.registrationOrder } }

    /// The names `auto` tries, in order.
    public var automaticNames: [String] { state.withLock { $0.automaticOrder } }

    /// The one instance of the backend registered as `name`.
    /// Throws `errSecParam` naming the valid choices when no such backend exists.
    public func backend(named name: String) throws -> any KeychainBackend {
        try state.withLock { (state) throws(KeychainError) -> any KeychainBackend in
            if let existing = state.instances[name] { return existing }
            guard let factory = state.factories[name] else {
                let valid = ([Self.automaticName] + state.registrationOrder).joined(separator: ", ")
                throw KeychainError(errSecParam, "Unknown keychain backend '\(name)'. Valid backends: \(valid).")
            }
            let made = factory()
            state.instances[name] = made
            return made
        }
    }

    /// Chooses the backend in code, overriding `KEYCHAIN_BACKEND` and every file.
    public func use(_ backend: any KeychainBackend) {
        state.withLock { $0.chosen = BackendSelection(backend: backend, source: .code) }
    }

    /// Forgets the choice, so the next use selects again (for tests and long-lived tools).
    public func resetChoice() {
        state.withLock { $0.chosen = nil }
    }

    /// The backend in use: chosen at the first call in the order the type's documentation
    /// gives, then kept for the life of the process; a backend `withBackend(_:_:)` set for
    /// the current task comes first.
    public func current() throws -> any KeychainBackend {
        try currentSelection().backend
    }

    /// The backend in use and where its choice came from, resolved in the order the type's
    /// documentation gives and then kept for the life of the process.
    /// A backend that `withBackend` set for the current task comes first, as chosen in code.
    package func currentSelection() throws -> BackendSelection {
        if let scoped = Self.scopedBackend { return BackendSelection(backend: scoped, source: .code) }
        if let chosen = state.withLock({ $0.chosen }) { return chosen }
        let selection = try resolveSelection()
        return state.withLock {
            if $0.chosen == nil { $0.chosen = selection }
            return $0.chosen!
        }
    }

    /// Resolves the choice afresh, without keeping it (for `linux-keychain backends`). With `survey`,
    /// the availabilities it found are reused instead of being checked again.
    package func resolveSelection(reusing survey: BackendSurvey? = nil) throws -> BackendSelection {
        let availability: (any KeychainBackend) -> BackendAvailability = { backend in
            survey?.availability(of: backend) ?? backend.availability()
        }
        let placement = self.placement
        let variable = (placement?.environment ?? ProcessInfo.processInfo.environment)[Self.selectionVariable] ?? ""
        if !variable.isEmpty && variable != Self.automaticName {
            return BackendSelection(backend: try select(variable, availability: availability), source: .environment)
        }
        return try automaticSelection(availability: availability)
    }

    /// What `auto` means wherever it is named (`KEYCHAIN_BACKEND=auto`, the CLI's
    /// `--backend auto`): the user's file, the machine's, the recorded choice, and only then
    /// `auto`'s order. A file that says `backend = auto` pins nothing, so the next source applies.
    package func automaticSelection() throws -> BackendSelection {
        try automaticSelection { $0.availability() }
    }

    private func automaticSelection(availability: (any KeychainBackend) -> BackendAvailability) throws -> BackendSelection {
        guard let placement else { return BackendSelection(backend: try automaticChoice(availability: availability).get(), source: .automatic) }
        let (user, system) = try placement.files()
        for (file, source) in [(user, BackendSource.userFile(user?.path ?? "")), (system, .systemFile(system?.path ?? ""))] {
            guard let file, let name = file.backend, name != Self.automaticName else { continue }
            do {
                return BackendSelection(backend: try selectNamed(name, availability: availability), source: source)
            } catch let error as KeychainError {
                throw Self.explaining(error, "The keychain backend '\(name)' is pinned in \(file.path)")
            }
        }
        if let name = try placement.recordedBackend(), let path = placement.recordPath {
            guard names.contains(name) else {
                throw KeychainError(errSecParam, "The recorded keychain backend \(path) names no backend this program has (\(names.joined(separator: ", "))); remove that file to choose afresh, or set \(Self.selectionVariable).")
            }
            do {
                return BackendSelection(backend: try selectNamed(name, availability: availability), source: .recorded(path))
            } catch let error as KeychainError {
                throw Self.explaining(error, """
                    This user's keychain items are in '\(name)', where the first write chose to keep them \
                    (recorded in \(path)); it cannot be reached from here, and nothing is read from or written \
                    to another store instead
                    """, advice: " To use another store here, set \(Self.selectionVariable) or pin one with `linux-keychain pin NAME`.")
            }
        }
        return BackendSelection(backend: try automaticChoice(availability: availability).get(), source: .automatic)
    }

    /// `error` with `context` before its message; status and backend kept.
    private static func explaining(_ error: KeychainError, _ context: String, advice: String = "") -> KeychainError {
        var explained = error
        explained.message = "\(context): \(error.message)\(advice)"
        return explained
    }

    /// Records the backend `auto` chose, before the first write through it; later runs use it.
    /// Does nothing without a placement, or once this registry has recorded or found a record.
    ///
    /// The record holds the name the backend is registered under, which is what the next run
    /// looks up; a program's backend may be registered under a name other than its own `name`.
    /// Throws `errSecIO`, and the write must not go ahead, when the record cannot be written,
    /// or when another process recorded a different backend first; in that case the choice is
    /// forgotten, so the next call follows the record.
    package func claimAutomaticChoice(_ backend: any KeychainBackend) throws {
        guard let placement else { return }
        let registeredName: String? = state.withLock { state in
            guard !state.recorded else { return nil }
            return state.instances.first { $0.value === backend }?.key ?? backend.name
        }
        guard let registeredName else { return }
        let holder = try placement.claim(registeredName)
        guard holder == registeredName else {
            resetChoice()
            throw KeychainError(errSecIO, "Another process recorded '\(holder)' as this user's keychain backend (in \(placement.recordPath ?? "the record")) while this one chose '\(registeredName)'; nothing was written. Try again: the next attempt uses '\(holder)'.")
        }
        state.withLock { $0.recorded = true }
    }

    /// Resolves a selection name (`auto` or a backend name) to a usable backend. Fails with
    /// `errSecParam` when a configuration file is malformed, so that no store is touched.
    public func select(_ selection: String) throws -> any KeychainBackend {
        try select(selection) { $0.availability() }
    }

    private func select(_ selection: String, availability: (any KeychainBackend) -> BackendAvailability) throws -> any KeychainBackend {
        if selection == Self.automaticName { return try automaticSelection(availability: availability).backend }
        _ = try placement?.files()
        return try selectNamed(selection, availability: availability)
    }

    /// The backend registered as `name` (never `auto`: pins and the record name a backend,
    /// and only `select` expands `auto`, so the two can never call each other), if it can run.
    private func selectNamed(_ name: String, availability: (any KeychainBackend) -> BackendAvailability) throws -> any KeychainBackend {
        let backend = try backend(named: name)
        if case .unavailable(let reason) = availability(backend) {
            throw reason.attributed(to: backend.name)
        }
        return backend
    }

    /// What `auto` finds: the first usable backend in order (a backend whose unlock would
    /// prompt, `KeychainBackend.unlockNeedsPrompt`, after all the others); or a backend that is present but
    /// locked (`errSecInteractionNotAllowed`), whose error is the answer, since moving on would
    /// put the user's secrets in another store than the one they expect; or an error listing
    /// every backend tried and why each could not be used. It moves past a backend only when
    /// that backend is absent here (any other reason).
    package func automaticChoice() -> Result<any KeychainBackend, KeychainError> {
        automaticChoice { $0.availability() }
    }

    /// Every registered backend with its availability, and what `auto` picks, checking each
    /// backend's availability once (a check can take a backend's whole timeout, such as a
    /// Secret Service provider that does not answer). For `linux-keychain backends`.
    package func survey() -> BackendSurvey {
        var found: [(name: String, backend: any KeychainBackend, availability: BackendAvailability)] = []
        for name in names {
            guard let backend = try? backend(named: name) else { continue }
            found.append((name, backend, backend.availability()))
        }
        let checked = found.map { (backend: $0.backend, availability: $0.availability) }
        let automatic = automaticChoice { backend in
            checked.first { $0.backend === backend }?.availability ?? backend.availability()
        }
        return BackendSurvey(backends: found.map { ($0.name, $0.availability) }, checked: checked, automaticChoice: automatic)
    }

    private func automaticChoice(availability: (any KeychainBackend) -> BackendAvailability) -> Result<any KeychainBackend, KeychainError> {
        var reasons: [String] = []
        // A backend that would prompt goes after every one that would not: an unattended run
        // must not wait on a terminal, and a configured key source beats asking.
        let candidates = automaticNames.compactMap { name in (try? backend(named: name)).map { (name, $0) } }
        let ordered = candidates.filter { !$0.1.unlockNeedsPrompt } + candidates.filter { $0.1.unlockNeedsPrompt }
        for (name, backend) in ordered {
            switch availability(backend) {
            case .available: return .success(backend)
            case .unavailable(let reason) where reason.status == errSecInteractionNotAllowed:
                return .failure(Self.explaining(reason.attributed(to: name),
                    "auto chose '\(name)', which is here but cannot be used without unlocking (auto does not move on to another store)"))
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
package struct BackendSurvey: Sendable {
    /// Every registered backend, in registration order, with its availability.
    package let backends: [(name: String, availability: BackendAvailability)]
    /// What `auto` picks, from those same availabilities.
    package let automaticChoice: Result<any KeychainBackend, KeychainError>
    let checked: [(backend: any KeychainBackend, availability: BackendAvailability)]

    init(backends: [(name: String, availability: BackendAvailability)],
         checked: [(backend: any KeychainBackend, availability: BackendAvailability)],
         automaticChoice: Result<any KeychainBackend, KeychainError>) {
        self.backends = backends
        self.checked = checked
        self.automaticChoice = automaticChoice
    }

    /// The availability found for `backend`, or nil when it was not part of the survey.
    package func availability(of backend: any KeychainBackend) -> BackendAvailability? {
        checked.first { $0.backend === backend }?.availability
    }
}
