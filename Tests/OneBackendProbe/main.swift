import Foundation
import KeychainCore
import KeychainKeyring
import LinuxKeychainFrontEnd

// A program that wants only the kernel keyring: it links LinuxKeychainFrontEnd and
// KeychainKeyring, registers the backend itself and speaks SecItem. OneBackendLinkTests checks
// that no other backend's code is in it.
//
//     KeychainOneBackendProbe SERVICE ACCOUNT    adds standard input, reads it back, prints it,
//                                                deletes it, then prints the shared libraries
//                                                mapped into the process (/proc/self/maps)
//
// Exit status: 0 success, 1 anything else (the OSStatus on stderr).

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: KeychainOneBackendProbe SERVICE ACCOUNT\n".utf8))
    exit(1)
}
KeychainBackendRegistry.shared.use(KernelKeyringBackend(environment: ProcessInfo.processInfo.environment))

func fail(_ step: String, _ status: OSStatus) -> Never {
    FileHandle.standardError.write(Data("\(step): OSStatus \(status)\n".utf8))
    exit(1)
}

let item: [CFString: Any] = [kSecClass: kSecClassGenericPassword,
                             kSecAttrService: arguments[0], kSecAttrAccount: arguments[1]]
let secret = FileHandle.standardInput.readDataToEndOfFile()
var adding = item
adding[kSecValueData] = secret
let added = SecItemAdd(adding as CFDictionary, nil)
guard added == errSecSuccess else { fail("SecItemAdd", added) }

var reading = item
reading[kSecReturnData] = true
var result: CFTypeRef?
let read = SecItemCopyMatching(reading as CFDictionary, &result)
guard read == errSecSuccess, let data = result as? Data else { fail("SecItemCopyMatching", read) }
let deleted = SecItemDelete(item as CFDictionary)
guard deleted == errSecSuccess else { fail("SecItemDelete", deleted) }

// Read to the end: /proc files report size 0, so a read sized by the file's length stops short.
let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
let libraries = Set(maps.split(separator: "\n").compactMap { line in
    line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
}.filter { $0.contains(".so") })
FileHandle.standardOutput.write(data)
FileHandle.standardOutput.write(Data(("\n" + libraries.sorted().joined(separator: "\n") + "\n").utf8))
