import KeychainCore

/// An update of Secret Service items that is all or nothing from the caller's view.
///
/// The Secret Service changes an item's attributes, label and secret in separate requests, and
/// a provider may refuse any of them (KeePassXC 2.7 refuses some attribute writes that
/// gnome-keyring takes) or go away between two. So the parts are applied in the order least
/// likely to be refused first: attributes, then label, then the secret; each applied part is
/// recorded, and when a later one fails, the recorded ones are undone in reverse order, back to
/// the item's previous attributes, label and secret. With one item and a new secret, the secret
/// is the last part of all, so nothing after it can fail and the old secret need not be read;
/// and when only its modification date changes with it, its attributes and its secret go out
/// together (`applyTogether`).
@LibsecretActor
struct SecretServiceUpdate {
    /// One applied part, with what undoes it.
    private enum Applied {
        case attributes(path: String, previous: [String: String], now: [String: String])
        case label(path: String, previous: String)
        case secret(path: String, previous: SecretBytes)
    }

    let session: LibsecretSession
    private var applied: [Applied] = []

    init(session: LibsecretSession) { self.session = session }

    /// Gives each `(item, attributes, label)` its new attributes and label, and `secret` if
    /// given. On failure the items are put back as they were, and the error says whether that
    /// worked. `previousSecrets` holds the items' secrets by path; it may be empty when there is
    /// a single item, and is required for every item otherwise.
    mutating func apply(_ targets: [(stored: StoredItem, attributes: [String: String], label: String)],
                        secret: SecretBytes?, previousSecrets: [String: SecretBytes]) throws {
        do {
            for target in targets {
                let path = target.stored.path
                if let secret, targets.count == 1, target.label == target.stored.label,
                   target.attributes != target.stored.attributes, Self.changesOnlyTheModificationDate(target) {
                    try applyTogether(target, secret: secret)
                    continue
                }
                if target.attributes != target.stored.attributes {
                    try session.setAttributes(target.attributes, replacing: target.stored.attributes, at: path)
                    applied.append(.attributes(path: path, previous: target.stored.attributes, now: target.attributes))
                }
                if target.label != target.stored.label {
                    try session.setLabel(target.label, at: path)
                    applied.append(.label(path: path, previous: target.stored.label))
                }
                if let secret {
                    try session.setSecret(secret, at: path)
                    if let previous = previousSecrets[path] { applied.append(.secret(path: path, previous: previous)) }
                }
            }
        } catch let lost as SecretServiceErrors.TransferSessionLost {
            // Undone, the update can run again on a new connection (`SecretServiceBackend.perform`).
            let (reported, undone) = undo(after: lost.error)
            throw undone ? SecretServiceErrors.TransferSessionLost(error: reported) : reported
        } catch let failure as KeychainError {
            throw undo(after: failure).error
        }
    }

    /// Whether the modification date is the only attribute `target` changes, as in every
    /// update of a secret alone. That is the one attribute write known to be taken wherever the
    /// secret is: a provider may refuse others on their values (KeePassXC refuses a value
    /// shaped like one of its field references, `{REF:T@I:...}`), and sent with the secret,
    /// such a refusal would come after the secret was taken.
    private static func changesOnlyTheModificationDate(
        _ target: (stored: StoredItem, attributes: [String: String], label: String)) -> Bool {
        let date = SecretServiceAttributeMapping.modificationDateAttribute
        return target.attributes.filter { $0.key != date } == target.stored.attributes.filter { $0.key != date }
    }

    /// The attributes and the secret of the one item an update changes (its label staying and
    /// its modification date the only attribute changing), sent together, so the update waits
    /// for one round trip instead of two. The provider takes them in order, attributes first.
    /// A refused secret has the attributes put back, as in `apply`. Attributes refused while
    /// the secret was taken cannot be put back as they were (the old secret was not read, see
    /// the type's comment): the error says the secret changed. Neither provider refuses a new
    /// modification date of an item that takes a secret (`changesOnlyTheModificationDate`).
    private mutating func applyTogether(_ target: (stored: StoredItem, attributes: [String: String], label: String),
                                        secret: SecretBytes) throws {
        let path = target.stored.path
        let outcome = try session.setAttributesAndSecret(target.attributes, replacing: target.stored.attributes,
                                                         secret: secret, at: path)
        switch (outcome.attributes, outcome.secret) {
        case (nil, nil):
            return
        case (nil, let refused?):
            applied.append(.attributes(path: path, previous: target.stored.attributes, now: target.attributes))
            if outcome.secretLostSession { throw SecretServiceErrors.TransferSessionLost(error: refused) }
            throw refused
        case (let refused?, nil):
            // Nothing was applied before this part, so `apply` has nothing to undo.
            var reported = refused
            reported.message += " The item's secret was changed nonetheless; its other attributes were not."
            throw reported
        case (let refused?, _?):
            throw refused
        }
    }

    /// Undoes the applied parts, newest first, and returns `failure` with a word on the outcome,
    /// and whether everything applied was undone.
    private func undo(after failure: KeychainError) -> (error: KeychainError, undone: Bool) {
        guard !applied.isEmpty else { return (failure, true) }
        var undoFailure: KeychainError?
        for part in applied.reversed() {
            do {
                switch part {
                case .attributes(let path, let previous, let now):
                    try session.setAttributes(previous, replacing: now, at: path)
                case .label(let path, let previous):
                    try session.setLabel(previous, at: path)
                case .secret(let path, let previous):
                    try session.setSecret(previous, at: path)
                }
            } catch let error as KeychainError {
                undoFailure = undoFailure ?? error
            } catch let lost as SecretServiceErrors.TransferSessionLost {
                undoFailure = undoFailure ?? lost.error
            } catch {
                undoFailure = undoFailure ?? KeychainError(errSecIO, "\(error)", backend: SecretServiceErrors.backend)
            }
        }
        var reported = failure
        if let undoFailure {
            reported.message += " The parts of the update already applied could not all be undone either (\(undoFailure.message)): check the items it was meant to change."
        } else {
            reported.message += " Nothing was changed: the parts of the update already applied were undone."
        }
        return (reported, undoFailure == nil)
    }
}
