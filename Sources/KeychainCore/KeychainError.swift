/// An error from the keychain: Apple's `OSStatus` plus a message that says what went wrong
/// and what to do, in the style of swift-system's `Errno`.
///
/// Match on the status in a `catch`:
///
///     do { try keychain.remove("token") }
///     catch KeychainError.itemNotFound { /* nothing to remove */ }
///
/// Contract for everyone who creates one: the message, the backend name and the call name
/// never contain a secret. They may contain item names (service, account), which callers
/// chose and which other tools show in the clear anyway.
public struct KeychainError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Apple's status code; never thrown away, so an unknown code survives intact.
    public var status: OSStatus
    /// What went wrong and, where it helps, what to do about it.
    public var message: String
    /// The backend that reported the error, if any.
    public var backend: String?
    /// The underlying system or library call that failed, e.g. `keyctl_search`.
    public var failedCall: String?

    /// An error with Apple's `status` and a message saying what to do, optionally naming the
    /// backend and the underlying call. None of them may contain a secret.
    public init(_ status: OSStatus, _ message: String, backend: String? = nil, failedCall: String? = nil) {
        self.status = status
        self.message = message
        self.backend = backend
        self.failedCall = failedCall
    }

    /// The same error attributed to `backend`, unless it already names one.
    public func attributed(to backend: String) -> KeychainError {
        var copy = self
        if copy.backend == nil { copy.backend = backend }
        return copy
    }

    /// The message with the backend, the failing call and the status, for logs.
    public var description: String {
        var text = ""
        if let backend { text += "\(backend): " }
        text += message
        if let failedCall { text += " (\(failedCall))" }
        return text + " [OSStatus \(status)]"
    }

    /// A status to match in `catch` clauses; see `~=`.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The status this code stands for.
        public var rawValue: OSStatus
        /// The code for `rawValue`.
        public init(rawValue: OSStatus) { self.rawValue = rawValue }

        /// Whether `error` is a `KeychainError` with this status, so `catch KeychainError.itemNotFound` works.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? KeychainError)?.status == code.rawValue
        }
    }

    /// `errSecItemNotFound`
    public static var itemNotFound: Code { Code(rawValue: errSecItemNotFound) }
    /// `errSecDuplicateItem`
    public static var duplicateItem: Code { Code(rawValue: errSecDuplicateItem) }
    /// `errSecParam`
    public static var param: Code { Code(rawValue: errSecParam) }
    /// `errSecNotAvailable`
    public static var notAvailable: Code { Code(rawValue: errSecNotAvailable) }
    /// `errSecInteractionNotAllowed`
    public static var interactionNotAllowed: Code { Code(rawValue: errSecInteractionNotAllowed) }
    /// `errSecAuthFailed`
    public static var authFailed: Code { Code(rawValue: errSecAuthFailed) }
    /// `errSecDataTooLarge`
    public static var dataTooLarge: Code { Code(rawValue: errSecDataTooLarge) }
    /// `errSecDecode`
    public static var decode: Code { Code(rawValue: errSecDecode) }
    /// `errSecIO`
    public static var io: Code { Code(rawValue: errSecIO) }
    /// `errSecUnimplemented`
    public static var unimplemented: Code { Code(rawValue: errSecUnimplemented) }
    /// `errSecDiskFull`
    public static var diskFull: Code { Code(rawValue: errSecDiskFull) }
}

extension KeychainError {
    /// `errSecItemNotFound` with a message naming what was looked for.
    public static func notFound(_ what: String = "No item matches the query.") -> KeychainError {
        KeychainError(errSecItemNotFound, what)
    }

    /// `errSecParam` for input of the wrong shape.
    public static func badParameter(_ message: String) -> KeychainError {
        KeychainError(errSecParam, message)
    }

    /// `errSecDuplicateItem` for an add or update that collides with an existing primary key.
    public static func duplicate(_ message: String = "An item with the same primary key already exists.") -> KeychainError {
        KeychainError(errSecDuplicateItem, message)
    }
}
