import FoundationEssentials
import Glibc

/// The descriptors this process was started with, so that `run` hands its command those
/// (a `3<file` the caller meant for it) and none that linux-keychain opened since.
///
/// The library opens its own descriptors close-on-exec; this makes sure of it for those a C
/// library it loads opens without the flag (libcurl's, GLib's), before `execvp`.
struct InheritedDescriptors {
    /// The numbers open at `current()`, or nil when /proc/self/fd could not be read: then
    /// every descriptor beyond stdin, stdout and stderr is kept from the command.
    private let numbers: Set<Int32>?

    /// The descriptors open now. Call it before anything of the keychain's is opened.
    static func current() -> InheritedDescriptors {
        InheritedDescriptors(numbers: openDescriptors().map(Set.init))
    }

    /// Marks close-on-exec every open descriptor that was not inherited, other than 0, 1 and 2.
    func markOthersCloseOnExec() {
        let open = Self.openDescriptors() ?? Array(3..<Int32(max(3, min(sysconf(Int32(_SC_OPEN_MAX)), 65536))))
        for descriptor in open where descriptor > 2 && numbers?.contains(descriptor) != true {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
    }

    /// The open descriptors, from /proc/self/fd without the listing's own, or nil.
    private static func openDescriptors() -> [Int32]? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor != own { found.append(descriptor) }
        }
        return found
    }
}
