import Foundation
@testable import KeychainCore
@testable import KeychainVault

// Vault's JSON reader (VaultJSON) over whole server answers, and the item reader behind it
// (VaultItemFields.item) over a KV v2 answer's `data.data` object.

private let samplePrimaryKey = PrimaryKey(itemClass: .genericPassword, attributes: fuzzSampleItems()[0].attributes)

func fuzzSeeds() -> [Data] {
    var seeds = fuzzSampleItems().map { item -> Data in
        let stored = VaultItemFields.body(of: item, secret: item.secret ?? SecretBytes(Data()))
        let metadata = VaultRequestBody.object([
            ("created_time", .text("2026-01-02T03:04:05.123456789Z")), ("custom_metadata", .json(.null)),
            ("deletion_time", .text("")), ("destroyed", .json(.bool(false))), ("version", .integer(3)),
        ])
        let answer = VaultRequestBody.object([
            ("request_id", .text("0b2c7d2e-1f3a-4c5d-9e8f-123456789abc")), ("lease_id", .text("")),
            ("renewable", .json(.bool(false))), ("lease_duration", .integer(0)),
            ("data", .object([("data", stored), ("metadata", metadata)])),
            ("wrap_info", .json(.null)), ("warnings", .json(.null)), ("auth", .json(.null)),
        ])
        return answer.serialized().withUnsafeBytes { Data($0) }
    }
    // A listing and an error answer, as the server sends them.
    seeds.append(Data(#"{"data":{"keys":["a/","b\u00e9\n","c"]},"lease_duration":0,"renewable":false}"#.utf8))
    seeds.append(Data(#"{"errors":["permission denied",1.5e-3,-0,true,null,[],{}]}"#.utf8))
    return seeds
}

func fuzzCheck(_ input: Data) {
    guard let parsed = VaultJSON.parse(input) else { return }
    // The JSON written back (as the backend writes an operator's own fields back) parses again
    // and writes the same bytes.
    let written = VaultRequestBody.json(parsed).serialized().withUnsafeBytes { Data($0) }
    guard let reparsed = VaultJSON.parse(written) else { fuzzFailure("written-back JSON does not parse") }
    guard VaultRequestBody.json(reparsed).serialized().withUnsafeBytes({ Data($0) }) == written else {
        fuzzFailure("JSON changed on its way through write and parse")
    }
    if let fields = parsed["data"]?["data"]?.members ?? parsed.members {
        _ = try? VaultItemFields.item(at: "fuzz/item", primaryKey: samplePrimaryKey, fields: fields, includeSecret: true)
    }
}
