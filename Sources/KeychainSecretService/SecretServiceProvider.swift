#if canImport(Glibc)
import Glibc
#endif
import KeychainCore

/// The program that serves `org.freedesktop.secrets`, as found when the connection was opened,
/// and what this backend must do differently for it.
///
/// A connection keeps to this provider (see `SecretServiceConnection`): its unique bus name dies
/// with it, and another provider that takes the name later, for instance a gnome-keyring that
/// D-Bus activates when KeePassXC crashed, does not hold the same items.
struct SecretServiceProvider: Sendable, Equatable {
    /// The implementations whose behaviour differs in ways this backend handles.
    enum Kind: Sendable, Equatable {
        case gnomeKeyring
        case keePassXC
        /// KWallet's Secret Service (kwalletd5/6, ksecretd).
        case kWallet
        /// Anything else: treated like gnome-keyring, the reference implementation.
        case other
    }

    /// The well-known name KeePassXC's main window owns on the session bus.
    static let keePassXCBusName = "org.keepassxc.KeePassXC.MainWindow"

    /// The provider's unique bus name, e.g. ":1.42".
    let uniqueName: String
    /// Its process id, or 0 when the bus did not say.
    let processID: UInt32
    let kind: Kind
    /// The program's name as the kernel knows it (`/proc/PID/comm`), or "" when unknown.
    let command: String

    init(uniqueName: String, processID: UInt32, command: String) {
        self.uniqueName = uniqueName
        self.processID = processID
        self.command = command
        self.kind = Self.kind(ofCommand: command)
    }

    /// Identifies the provider from its process's command name, which the bus tells through
    /// the process id; the Secret Service API itself has no property naming its implementation.
    static func identify(uniqueName: String, processID: UInt32) -> SecretServiceProvider {
        SecretServiceProvider(uniqueName: uniqueName, processID: processID,
                              command: processID == 0 ? "" : commandName(of: processID))
    }

    static func kind(ofCommand command: String) -> Kind {
        switch command {
        // comm is cut to 15 bytes: "gnome-keyring-daemon" reads "gnome-keyring-d".
        case let name where name.hasPrefix("gnome-keyring"): return .gnomeKeyring
        case let name where name.lowercased().hasPrefix("keepassxc"): return .keePassXC
        case let name where name.hasPrefix("kwalletd") || name == "ksecretd": return .kWallet
        default: return .other
        }
    }

    /// How the provider is named in messages, e.g. "KeePassXC (pid 812, bus name :1.7)".
    var description: String {
        let name: String
        switch kind {
        case .gnomeKeyring: name = "gnome-keyring"
        case .keePassXC: name = "KeePassXC"
        case .kWallet: name = "KWallet"
        case .other: name = command.isEmpty ? "the Secret Service provider" : "the Secret Service provider '\(command)'"
        }
        let process = processID == 0 ? "" : "pid \(processID), "
        return "\(name) (\(process)bus name \(uniqueName))"
    }

    /// Whether `other` is the same program as this one (by command name; an unknown one is
    /// never the same), as when a killed provider was started again.
    func isSameProgram(as other: SecretServiceProvider) -> Bool { !command.isEmpty && command == other.command }

    /// Attributes the provider reports but refuses in a Properties.Set(Attributes), failing the
    /// whole call: KeePassXC's own entry UUID and group path.
    var readOnlyAttributes: Set<String> { kind == .keePassXC ? ["Uuid", "Path"] : [] }

    /// Whether Properties.Set(Attributes) merges into the stored attributes (KeePassXC) instead of
    /// replacing them all (gnome-keyring, as the specification says).
    var mergesAttributes: Bool { kind == .keePassXC }

    /// Whether a text/plain secret holding a NUL comes back whole. KWallet keeps text/plain as a
    /// string that ends at the first NUL, so there such a secret goes as bytes.
    var textKeepsNUL: Bool { kind != .kWallet }

    /// What to send so that an item whose attributes are `current` ends up with `wanted`, in
    /// the form this provider accepts; nil when nothing needs sending. A provider that merges is
    /// sent only the changed pairs, and a name to drop is set to "" (it cannot be removed there).
    func attributesToSend(_ wanted: [String: String], replacing current: [String: String]) -> [String: String]? {
        var sent: [String: String]
        if mergesAttributes {
            sent = wanted.filter { current[$0.key] != $0.value }
            for name in current.keys where wanted[name] == nil && current[name] != "" { sent[name] = "" }
        } else {
            guard wanted != current else { return nil }
            sent = wanted
        }
        for name in readOnlyAttributes { sent[name] = nil }
        return sent.isEmpty ? nil : sent
    }

    /// `/proc/PID/comm` without its surrounding white space and control characters (the
    /// provider names itself), or "" when it cannot be read. Read
    /// with open and read: Foundation's file and string APIs cost a process that makes one call
    /// more at their first use than the read itself (type metadata and bridging set up).
    private static func commandName(of processID: UInt32) -> String {
        let descriptor = open("/proc/\(processID)/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        // The kernel keeps at most 15 bytes and a newline.
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return "" }
        var name = Substring(ForeignText.printable(String(decoding: bytes.prefix(count), as: UTF8.self)))
        while name.last?.isWhitespace == true { name.removeLast() }
        while name.first?.isWhitespace == true { name.removeFirst() }
        return String(name)
    }
}
