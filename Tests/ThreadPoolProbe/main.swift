import Foundation
import KeychainConformance
import KeychainCore
import LinuxKeychain

// Runs a ThreadPoolWorkload in a process of its own, for the tests that run it as another
// user or in a keyring of its own:
//
//     KeychainThreadPoolProbe SERVICE [WORKLOAD-JSON]   runs the workload on the backend that
//                                                       KEYCHAIN_BACKEND selects; prints its
//                                                       Result as JSON on standard output
//     KeychainThreadPoolProbe --fill THREADS SERVICE   fills the quota from THREADS threads
//                                                       (QuotaFill); prints its Result as JSON
//
// Exit status: 0 when it passed, 1 when it ran and failed, 2 when it could not run.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.count == 3, arguments[0] == "--fill", let threads = Int(arguments[1]) {
    do {
        let result = QuotaFill(threads: threads).run(on: try KeychainBackendRegistry.withBuiltIns.current(), service: arguments[2])
        FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
        exit(result.failures.isEmpty ? 0 : 1)
    } catch {
        FileHandle.standardError.write(Data("KeychainThreadPoolProbe: \(error)\n".utf8))
        exit(2)
    }
}
guard (1...2).contains(arguments.count) else {
    FileHandle.standardError.write(Data("usage: KeychainThreadPoolProbe SERVICE [WORKLOAD-JSON]\n".utf8))
    exit(2)
}
do {
    let workload = try arguments.count == 2
        ? JSONDecoder().decode(ThreadPoolWorkload.self, from: Data(arguments[1].utf8)) : ThreadPoolWorkload()
    let result = workload.run(on: try KeychainBackendRegistry.withBuiltIns.current(), service: arguments[0])
    FileHandle.standardOutput.write(try JSONEncoder().encode(result) + Data("\n".utf8))
    exit(result.passed ? 0 : 1)
} catch {
    FileHandle.standardError.write(Data("KeychainThreadPoolProbe: \(error)\n".utf8))
    exit(2)
}
