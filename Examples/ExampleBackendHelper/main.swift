import Foundation
import ExampleBackend
import KeychainCore

// The helper process the many-process conformance case starts for `PlainFileBackend`, in the
// conventions `ConformanceProcesses` documents (those of the `linux-keychain` CLI):
//
//     ExampleBackendHelper DIRECTORY set|get|add SERVICE ACCOUNT
//
// set and add read the secret from stdin after the backend is open; get writes it to stdout.
// Exit status: 0 done, 3 not found, 4 duplicate, 1 anything else (the reason on stderr).

func fail(_ status: Int32, _ message: String) -> Never {
    try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else { fail(1, "usage: ExampleBackendHelper DIRECTORY set|get|add SERVICE ACCOUNT") }
let (directory, operation, service, account) = (arguments[1], arguments[2], arguments[3], arguments[4])
let backend = PlainFileBackend(directory: directory)
let key = PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes([.service: .string(service), .account: .string(account)]))

func readSecret() -> SecretBytes { SecretBytes(FileHandle.standardInput.readDataToEndOfFile()) }

do {
    switch operation {
    case "get":
        guard let item = try backend.search(ItemQuery(primaryKey: key, includeSecrets: true)).first, let secret = item.secret else {
            fail(3, "No item with \(key.readableName).")
        }
        FileHandle.standardOutput.write(secret.makeData())
    case "add":
        try backend.add(KeychainItem(itemClass: .genericPassword, attributes: key.attributes, secret: readSecret()))
    case "set":
        let secret = readSecret()
        if try backend.update(ItemQuery(primaryKey: key), with: ItemChanges(secret: secret)) == 0 {
            try backend.add(KeychainItem(itemClass: .genericPassword, attributes: key.attributes, secret: secret))
        }
    default:
        fail(1, "unknown operation '\(operation)'; use set, get or add")
    }
} catch let error as KeychainError {
    fail(error.status == errSecDuplicateItem ? 4 : 1, error.description)
} catch {
    fail(1, "\(error)")
}
