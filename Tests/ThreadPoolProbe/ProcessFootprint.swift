import Foundation

/// What this process holds, as the kernel counts it: resident memory (`VmRSS` in
/// /proc/self/status) and open file descriptors (the entries of /proc/self/fd).
struct ProcessFootprint: Equatable {
    /// Resident memory in kB, as the kernel writes it (units of 1,024 bytes).
    var residentKilobytes: Int
    /// Open descriptors, the one that lists /proc/self/fd included (the same in every sample).
    var openDescriptors: Int

    /// This process's footprint now; nil when /proc cannot be read.
    static func current() -> ProcessFootprint? {
        // Read to the end: the file is generated as it is read, and one read may stop short.
        guard let status = FileHandle(forReadingAtPath: "/proc/self/status"),
              let bytes = try? status.readToEnd(), (try? status.close()) != nil,
              let resident = residentKilobytes(inStatus: String(decoding: bytes, as: UTF8.self)),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        return ProcessFootprint(residentKilobytes: resident, openDescriptors: descriptors.count)
    }

    /// The figure of the `VmRSS:` line ("VmRSS:     12345 kB") of a /proc/PID/status text.
    static func residentKilobytes(inStatus text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(whereSeparator: \.isWhitespace).lazy.compactMap { Int($0) }.first
    }
}
