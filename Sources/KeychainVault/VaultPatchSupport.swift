import Synchronization

/// Whether a backend still tries `PATCH` for its updates.
///
/// A server refuses `PATCH` for reasons that hold for all its paths or most of them: a mount
/// with `cas_required`, a policy without the `patch` capability, a server that predates
/// `PATCH`. After the first refusal the backend goes straight to its read and check-and-set
/// write, so such a setup pays the refused request once per backend, not on every update.
final class VaultPatchSupport: Sendable {
    private let refused = Atomic<Bool>(false)

    /// False once a server refused a `PATCH` from this backend.
    var isWorthTrying: Bool { !refused.load(ordering: .relaxed) }

    /// Records a refusal; later updates skip `PATCH`.
    func noteRefusal() { refused.store(true, ordering: .relaxed) }
}
