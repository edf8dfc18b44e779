import Foundation
import KeychainCore

/// Items with every attribute kind, both classes, empty and non-ASCII values and an empty and
/// a binary secret: the values the seed encoders encode.
func fuzzSampleItems() -> [KeychainItem] {
    var generic = ItemAttributes()
    generic[.service] = .string("com.example.service")
    generic[.account] = .string("alice")
    generic[.label] = .string("Ünïcödé label ✓")
    generic[.generic] = .data(Data([0, 1, 2, 0xFF]))
    generic[.creator] = .integer(0x6C6B_6331)
    generic[.isInvisible] = .bool(true)
    generic[.creationDate] = .date(Date(timeIntervalSince1970: 1_700_000_000.125))

    var internet = ItemAttributes()
    internet[.server] = .string("db.example.org")
    internet[.account] = .string("")
    internet[.protocol] = .string("htps")
    internet[.port] = .integer(5432)
    internet[.path] = .string("/a,b:c")
    internet[.synchronizable] = .bool(false)

    var bare = ItemAttributes()
    bare[.service] = .string("s")
    return [
        KeychainItem(itemClass: .genericPassword, attributes: generic, secret: SecretBytes(Data("hunter2".utf8))),
        KeychainItem(itemClass: .internetPassword, attributes: internet, secret: SecretBytes(Data([0, 0xC3, 0x28, 10]))),
        KeychainItem(itemClass: .genericPassword, attributes: bare, secret: SecretBytes(Data())),
    ]
}
