import Foundation

// The floor a Swift command-line tool starts from: Foundation loaded, one line written.
// `keychain-bench` times it beside `linux-keychain get` as whole processes.
FileHandle.standardOutput.write(Data("hello, \(ProcessInfo.processInfo.processName)\n".utf8))
