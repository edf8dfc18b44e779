import Foundation
import KeychainConformance
import KeychainCore
@testable import KeychainSecretService
import KeychainTestSupport
import Testing

extension SecretServiceTests {
    /// An update of one item that changes its secret and its modification date, as every
    /// `SecItemUpdate` of a secret does (the date is an attribute), sends both writes at once
    /// (`SecretServiceUpdate.applyTogether`): it waits for one round trip, not two. The check
    /// holds the provider stopped for a second while the writes go out, so that a fast provider
    /// on a loaded machine cannot answer the first before the second is sent, which made the
    /// order seen by dbus-monitor vary from run to run on KeePassXC.
    @Suite("An update of one item sends its attributes and its secret together", .serialized)
    struct PairedWrite {
        let backend = SecretServiceTestSupport.backend

        @Test func theSecretGoesOutBeforeTheAttributesAreAnswered() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("paired")
            try backend.add(genericItem(service, "ida", Data("first".utf8)))
            defer { _ = try? backend.delete(exactQuery(service, "ida", secrets: false)) }
            let provider = try Self.providerProcessID()
            let modified = Date(timeIntervalSince1970: 1_800_000_000.5)
            let query = exactQuery(service, "ida", secrets: false)
            let lines = try DBusMonitor.lines {
                try backend.perform("a paired write", holdingWriteLock: true) { session in
                    let match = try #require(try SecretServiceOperations.matches(query, in: session).first)
                    var attributes = match.item.attributes
                    attributes[.modificationDate] = .date(modified)
                    let target = (stored: match.stored, label: match.stored.label,
                                  attributes: SecretServiceAttributeMapping.attributes(
                                      replacingIn: match.stored.attributes, itemClass: .genericPassword,
                                      with: attributes, isOurs: match.isOurs))
                    // Whatever the machine's load, the provider cannot answer the attributes
                    // before the secret is on the bus, unless the secret waits for that answer.
                    let stopped = kill(provider, SIGSTOP) == 0
                    let resumer = Thread { sleep(1); kill(provider, SIGCONT) }
                    resumer.start()
                    #expect(stopped, "the provider (pid \(provider)) could not be stopped")
                    var update = SecretServiceUpdate(session: session)
                    try update.apply([(stored: target.stored, attributes: target.attributes, label: target.label)],
                                     secret: SecretBytes(Data("second".utf8)), previousSecrets: [:])
                }
            }
            let item = try #require(try backend.search(exactQuery(service, "ida")).first)
            #expect(item.secret?.makeData() == Data("second".utf8))
            #expect(item.attributes[.modificationDate] == .date(modified))
            let bus = BusLines(lines)
            let attributes = try #require(bus.firstCall("Set", to: .item), "no Properties.Set seen")
            let answered = try #require(bus.reply(to: attributes), "no answer to Properties.Set seen")
            let secret = try #require(bus.firstCall("SetSecret", from: attributes.sender), "no SetSecret seen")
            #expect(attributes.index < secret.index, "the secret went out before the attributes")
            #expect(secret.index < answered, "the secret went out only after the attributes were answered")
        }

        /// The process id of the provider on the test's session bus.
        private static func providerProcessID() throws -> pid_t {
            let asked = try runTool("dbus-send", ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus.GetConnectionUnixProcessID",
                                                  "string:org.freedesktop.secrets"])
            let words = asked.outputText.split(whereSeparator: \.isWhitespace)
            let number = words.firstIndex(of: "uint32").flatMap { words.index(after: $0) < words.endIndex ? words[words.index(after: $0)] : nil }
            return try #require(number.flatMap { pid_t($0) }, "no provider process: \(asked.errorText)")
        }

        /// KeePassXC refuses a Properties.Set(Attributes) whose value looks like one of its field
        /// references (`{REF:T@I:...}`), and takes a SetSecret after it: sent together, the update
        /// would change the secret and fail. All or nothing means: either both parts took effect,
        /// or neither did (gnome-keyring takes the value; KeePassXC must refuse the update).
        @Test func attributesTheProviderRefusesLeaveTheSecretAsItWas() throws {
            try SecretServiceTestSupport.requireAvailable()
            let service = SecretServiceTestSupport.uniqueName("refused")
            try backend.add(genericItem(service, "ines", Data("first".utf8),
                                                                 extra: [.comment: .string("plain")]))
            defer { _ = try? backend.delete(exactQuery(service, "ines", secrets: false)) }
            let reference = "{REF:T@I:0123456789ABCDEF0123456789ABCDEF}"
            let changes = ItemChanges(attributes: ItemAttributes([.comment: .string(reference)]),
                                      secret: SecretBytes(Data("second".utf8)))
            let outcome = Result { try backend.update(exactQuery(service, "ines", secrets: false),
                                                      with: changes) }
            let item = try #require(try backend.search(exactQuery(service, "ines")).first)
            switch outcome {
            case .success:
                #expect(SecretServiceTestSupport.provider != "keepassxc", "KeePassXC took a field reference as a value")
                #expect(item.secret?.makeData() == Data("second".utf8))
                #expect(item.attributes.string(.comment) == reference)
            case .failure(let error):
                #expect(item.secret?.makeData() == Data("first".utf8), "the failed update changed the secret: \(error)")
                #expect(item.attributes.string(.comment) == "plain")
            }
        }
    }
}
