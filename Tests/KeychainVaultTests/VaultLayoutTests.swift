import Foundation
import KeychainCore
@testable import KeychainVault
import Testing

@Suite("vault item layout: readable, collision-free paths that stay under the prefix")
struct VaultLayoutTests {
    let layout = VaultItemLayout(prefix: "linux-keychain")

    private func genericKey(_ service: String, _ account: String, _ extra: [AttributeKey: AttributeValue] = [:]) -> PrimaryKey {
        var values: [AttributeKey: AttributeValue] = [.service: .string(service), .account: .string(account)]
        values.merge(extra) { _, new in new }
        return PrimaryKey(itemClass: .genericPassword, attributes: ItemAttributes(values))
    }

    @Test func ordinaryNamesReadPlainly() {
        #expect(layout.path(of: genericKey("my-app", "alice@example.com")) == "linux-keychain/generic/my-app/alice@example.com")
        let internet = PrimaryKey(itemClass: .internetPassword, attributes: ItemAttributes([
            .server: .string("git.example.com"), .account: .string("bob"), .protocol: .string("htps"), .port: .integer(8443),
        ]))
        #expect(layout.path(of: internet) == "linux-keychain/internet/git.example.com/bob;protocol=htps;port=8443")
    }

    @Test(arguments: [
        ("a/b", "c"), ("a", "b/c"), ("..", "../../etc/passwd"), (".", "."), ("", ""), ("%2F", "%"),
        ("x;access_group=y", "z"), ("a=b", "c;port=1"), ("%empty", "ключ-🔑"), ("sp ace", "tab\there"),
    ])
    func awkwardNamesStayInOneSegmentAndRoundTrip(_ service: String, _ account: String) throws {
        let key = genericKey(service, account)
        let path = layout.path(of: key)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // prefix, class folder, service folder, leaf: no name adds or removes a level.
        #expect(segments.count == 4, "\(path)")
        #expect(segments.prefix(2) == ["linux-keychain", "generic"])
        #expect(!segments.contains { $0.isEmpty || $0 == "." || $0 == ".." }, "\(path)")
        let decoded = try #require(layout.primaryKey(.genericPassword, groupSegment: segments[2], leaf: segments[3]))
        #expect(decoded == key)
    }

    @Test func distinctKeysNeverShareAPath() {
        let names = ["a", "a/b", "a%2Fb", "a;b", "a=b", "", ".", "..", "%empty", "%", "A", "é", "e\u{301}x", "ü", "a b", "a+b"]
        var paths: [String: PrimaryKey] = [:]
        for service in names {
            for account in names {
                for extra: [AttributeKey: AttributeValue] in [[:], [.accessGroup: .string("g")], [.synchronizable: .bool(true)]] {
                    let key = genericKey(service, account, extra)
                    let path = layout.path(of: key)
                    if let other = paths[path] { Issue.record("\(key.readableName) and \(other.readableName) share \(path)") }
                    paths[path] = key
                }
            }
        }
        #expect(paths.count == names.count * names.count * 3)
    }

    /// Names are exact scalars (decision 4): NFC and NFD spellings are two keys with two paths,
    /// and each path decodes to its own spelling.
    @Test func canonicallyEquivalentNamesAreTwoKeysWithTwoPaths() {
        let composed = genericKey("caf\u{E9}", "me")
        let decomposed = genericKey("cafe\u{301}", "me")
        #expect(composed != decomposed)
        #expect(layout.path(of: composed) == "linux-keychain/generic/caf%C3%A9/me")
        #expect(layout.path(of: decomposed) == "linux-keychain/generic/cafe%CC%81/me")
        #expect(VaultPathSegment.decode("caf%C3%A9").map { Array($0.unicodeScalars) } == Array("caf\u{E9}".unicodeScalars))
        #expect(VaultPathSegment.decode("cafe%CC%81").map { Array($0.unicodeScalars) } == Array("cafe\u{301}".unicodeScalars))
    }

    @Test func defaultQualifiersAreLeftOutSoEachKeyHasOnePath() {
        let explicit = genericKey("s", "a", [.accessGroup: .string(""), .synchronizable: .bool(false)])
        #expect(layout.path(of: explicit) == layout.path(of: genericKey("s", "a")))
        #expect(layout.path(of: genericKey("s", "a", [.synchronizable: .bool(true)])) == "linux-keychain/generic/s/a;synchronizable=1")
    }

    @Test func onlyCanonicalEntriesAreAccepted() {
        #expect(layout.primaryKey(.genericPassword, groupSegment: "my%20app", leaf: "me") == genericKey("my app", "me"))
        #expect(layout.primaryKey(.genericPassword, groupSegment: "my app", leaf: "me") == nil, "raw space")
        #expect(layout.primaryKey(.genericPassword, groupSegment: "%61pp", leaf: "me") == nil, "needless escape")
        #expect(layout.primaryKey(.genericPassword, groupSegment: "s", leaf: "a;synchronizable=0") == nil, "default written out")
        #expect(layout.primaryKey(.genericPassword, groupSegment: "s", leaf: "a%zz") == nil)
        #expect(layout.primaryKey(.genericPassword, groupSegment: "s", leaf: "a;colour=red") == nil)
        #expect(layout.primaryKey(.genericPassword, groupSegment: "s", leaf: "a;synchronizable=1;access_group=g") == nil,
                "qualifiers out of order would give one key two paths")
        #expect(layout.primaryKey(.genericPassword, groupSegment: "s", leaf: "a%FF") == nil, "not UTF-8")
    }
}

@Suite("vault JSON and secret encoding keep secrets as bytes")
struct VaultEncodingTests {
    private func text(_ body: VaultRequestBody) -> String {
        body.serialized().withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func requestBodiesAreJSONThatFoundationAgreesWith() throws {
        let secret = SecretBytes(Data("quote\" back\\slash\nnew ✓".utf8))
        let body = VaultRequestBody.object([("options", .object([("cas", .integer(0))])),
                                            ("data", .object([("password", .secretText(secret)), ("label", .text("tab\t"))]))])
        let parsed = try JSONSerialization.jsonObject(with: Data(text(body).utf8)) as? [String: Any]
        let data = parsed?["data"] as? [String: String]
        #expect(data?["password"] == "quote\" back\\slash\nnew ✓")
        #expect(data?["label"] == "tab\t")
        #expect((parsed?["options"] as? [String: Int])?["cas"] == 0)
    }

    @Test(arguments: [0, 1, 2, 3, 4, 5, 255, 256, 1000])
    func base64RoundTripsEveryLength(_ length: Int) throws {
        let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        let encoded = text(.secretBase64(SecretBytes(bytes)))
        #expect(encoded == "\"\(bytes.base64EncodedString())\"")
        let decoded = try #require(VaultSecretEncoding.decodeBase64(SecretBytes(Data(encoded.dropFirst().dropLast().utf8))))
        #expect(decoded.makeData() == bytes)
    }

    @Test func malformedBase64IsRejected() {
        for bad in ["abc", "ab=c", "a===", "ab!d", "====" ] {
            #expect(VaultSecretEncoding.decodeBase64(SecretBytes(Data(bad.utf8))) == nil, "\(bad)")
        }
    }

    @Test func onlyPrintableUTF8GoesIntoThePlainField() {
        func plain(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes(VaultSecretEncoding.isPrintableUTF8) }
        #expect(plain(Array("hunter2 ✓ ключ 🔑\ttab\r\n".utf8)))
        #expect(plain([]))
        #expect(!plain([0x00]), "NUL")
        #expect(!plain([0x1B]), "escape")
        #expect(!plain([0x7F]), "DEL")
        #expect(!plain([0xC2, 0x85]), "C1 control")
        #expect(!plain([0xC0, 0xAF]), "overlong")
        #expect(!plain([0xED, 0xA0, 0x80]), "surrogate")
        #expect(!plain([0xE2, 0x82]), "truncated")
        #expect(!plain([0xFF]))
    }

    @Test func parserKeepsEscapedAndUnicodeStringsExactly() throws {
        let json = #"{"data":{"password":"a\"b\\c\/d\u00e9\ud83d\udd11\n","n":[1,true,null,-2.5e3]},"v":42}"#
        let parsed = try #require(VaultJSON.parse(Data(json.utf8)))
        #expect(parsed["data"]?["password"]?.bytes?.makeData() == Data("a\"b\\c/dé🔑\n".utf8))
        #expect(parsed["v"]?.integer == 42)
        #expect(parsed["data"]?["n"]?.array?.count == 4)
    }

    @Test func parserRejectsMalformedAndTooDeepInput() {
        for bad in ["", "{", #"{"a":}"#, #"{"a":"\x"}"#, #""\ud800""#, "[1,]", "{} x", #""raw\#ncontrol""#] {
            #expect(VaultJSON.parse(Data(bad.utf8)) == nil, "\(bad)")
        }
        #expect(VaultJSON.parse(Data((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8)) == nil)
    }
}
