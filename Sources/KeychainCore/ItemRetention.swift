/// How long the items a backend keeps outlive the process that wrote them: the fact that
/// `auto`'s order, `linux-keychain backends` and a program's own logging need, since Apple code
/// assumes every keychain is durable ("read the key; if it is missing, make a new one"
/// silently replaces the key at each reboot on a volatile store).
public enum ItemRetention: Sendable, Equatable {
    /// On disk or on a server: items survive a reboot.
    case durable
    /// In kernel memory: items are lost at reboot (and may expire sooner).
    case untilReboot
    /// Inside one process: items are lost when it exits.
    case processLifetime

    /// Whether items are still there after the machine restarts.
    public var survivesReboot: Bool { self == .durable }

    /// What a user must be told about it where the store is chosen, or nil for a durable
    /// store: `kept in memory: lost at reboot` for the kernel keyring.
    public var warning: String? {
        switch self {
        case .durable: return nil
        case .untilReboot: return "kept in memory: lost at reboot"
        case .processLifetime: return "kept in this process only: lost when it exits"
        }
    }
}
