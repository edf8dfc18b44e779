#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import KeychainCore
import KeychainSystemCalls

extension KeyctlFailure {
    /// The keychain error for this failure while `doing` something, e.g. "reading the secret
    /// of service 'x', account 'y'". Names the errno and the call; never holds a secret. The
    /// status is `Errno.status(on: .kernelKeys)`; the message says what to do about it.
    func keychainError(_ doing: String) -> KeychainError {
        func error(_ message: String) -> KeychainError {
            KeychainError(errno.status(on: .kernelKeys), message, backend: KernelKeyringBackend.backendName, failedCall: call)
        }
        switch errno {
        case .notPermitted, .notImplemented:
            return error(
                "The kernel keyring is blocked here: \(call) was refused (\(reason)) while \(doing). A seccomp filter, such as Docker's default profile, forbids add_key and keyctl; allow them, or set KEYCHAIN_BACKEND=file.")
        case .quotaExceeded:
            let limits = getuid() == 0
                ? "/proc/sys/kernel/keys/root_maxkeys and /proc/sys/kernel/keys/root_maxbytes (the maxkeys and maxbytes of root)"
                : "/proc/sys/kernel/keys/maxkeys and /proc/sys/kernel/keys/maxbytes"
            return error(
                "The kernel key quota of uid \(getuid()) has no room left (\(reason)) while \(doing). An item takes one key (two when its attributes exceed 1 KiB) plus the bytes of its names, attributes and secret; delete items you no longer need, or raise \(limits) (by default 200 keys and 20000 bytes for users other than root).")
        case .keyRevoked:
            return error(
                "The kernel key is revoked (\(reason)) while \(doing). Delete the item and add it again; the kernel removes revoked keys after /proc/sys/kernel/keys/gc_delay seconds.")
        case .keyExpired:
            return error(
                "The kernel key has expired (\(reason)) while \(doing), for example after `keyctl timeout`. Delete the item and add it again.")
        case .permissionDenied:
            return error(
                "The kernel refused access (\(reason)) while \(doing): the key's permissions (see `keyctl describe`) do not let this process use it, or it belongs to another user.")
        case .noMemory:
            return error("The kernel is out of memory (\(reason)) while \(doing).")
        default:
            return error("The kernel keyring failed (\(reason)) while \(doing).")
        }
    }
}

extension KeychainError {
    /// An error of this backend that has no errno behind it.
    static func keyring(_ status: OSStatus, _ message: String, failedCall: String? = nil) -> KeychainError {
        KeychainError(status, message, backend: KernelKeyringBackend.backendName, failedCall: failedCall)
    }
}
