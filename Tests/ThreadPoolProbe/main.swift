import Foundation
import KeychainConformance
import KeychainCore
import LinuxKeychain

// Runs a ThreadPoolWorkload in a process of its own, on the backend KEYCHAIN_BACKEND selects,
// for the tests that run it as another user, in a keyring of its own or in many processes:
//
//     KeychainThreadPoolProbe [--accounts PREFIX] [--ready FILE] SERVICE [WORKLOAD-JSON]
//         runs the workload once on accounts PREFIXthread-item (default "pool"); prints its
//         Result as JSON on standard output. With --ready, it creates FILE once its backend is
//         chosen and starts only when standard input reaches its end, so that a harness can
//         release many processes at once
//     KeychainThreadPoolProbe --soak MINUTES SERVICE [WORKLOAD-JSON]
//         runs it again and again for MINUTES and samples this process's resident memory and
//         open descriptors (SoakRun), printing each sample and the verdict
//     KeychainThreadPoolProbe --fill THREADS SERVICE
//         fills the user's quota from THREADS threads (QuotaFill); prints its Result as JSON
//
// Exit status: 0 when it passed, 1 when it ran and failed, 2 when it could not run.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("KeychainThreadPoolProbe: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 3, arguments[0] == "--fill", let threads = Int(arguments[1]) {
    do {
        let result = QuotaFill(threads: threads).run(on: try KeychainBackendRegistry.withBuiltIns.current(), service: arguments[2])
        FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
        exit(result.failures.isEmpty ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}
var accountPrefix = "pool", readyFile: String?, soakMinutes: Int?
while let option = arguments.first, option.hasPrefix("--") {
    arguments.removeFirst()
    switch option {
    case "--ready" where !arguments.isEmpty: readyFile = arguments.removeFirst()
    case "--accounts" where !arguments.isEmpty: accountPrefix = arguments.removeFirst()
    case "--soak" where !arguments.isEmpty:
        guard let minutes = Int(arguments.removeFirst()), minutes > 0 else { fail("--soak takes a number of minutes above 0") }
        soakMinutes = minutes
    default: fail("unknown option \(option) or its value missing")
    }
}
guard (1...2).contains(arguments.count) else {
    fail("usage: KeychainThreadPoolProbe [--accounts PREFIX] [--ready FILE] SERVICE [WORKLOAD-JSON]\n"
         + "       KeychainThreadPoolProbe --soak MINUTES SERVICE [WORKLOAD-JSON]")
}
do {
    let workload = try arguments.count == 2
        ? JSONDecoder().decode(ThreadPoolWorkload.self, from: Data(arguments[1].utf8)) : ThreadPoolWorkload()
    let backend = try KeychainBackendRegistry.withBuiltIns.current()
    if let soakMinutes {
        exit(SoakRun(workload: workload, minutes: soakMinutes).run(on: backend, service: arguments[0]) ? 0 : 1)
    }
    if let readyFile {
        guard FileManager.default.createFile(atPath: readyFile, contents: nil) else { fail("cannot create \(readyFile)") }
        _ = try FileHandle.standardInput.readToEnd()
    }
    let result = workload.run(on: backend, service: arguments[0], accountPrefix: accountPrefix)
    FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
    exit(result.passed ? 0 : 1)
} catch {
    fail("\(error)")
}
