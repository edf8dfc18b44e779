import Foundation
import KeychainCore

/// Program identities (`AccessScope`): the front end turns a program's queries into ordinary
/// access-group constraints, so a backend keeps the isolation by matching `agrp` like any other
/// primary-key attribute. Two programs' items with the same service and account coexist, a
/// class-wide delete inside one identity leaves the other's and the shared items alone, and
/// each identity reads its own item before the shared one.
func isolatesProgramIdentities(_ backend: any KeychainBackend, _ context: ConformanceContext) throws {
    let service = context.service()
    // Unique groups, so that the class-wide delete below reaches nothing outside this case.
    let first = AccessScope.program("\(context.namespace)-first")
    let second = AccessScope.program("\(context.namespace)-second")
    try backend.add(genericItem(service, "shared", Data("shared".utf8)))
    try backend.add(first.stamping(genericItem(service, "token", Data("first".utf8))))
    try backend.add(second.stamping(genericItem(service, "token", Data("second".utf8))))
    try backend.add(first.stamping(genericItem(service, "only-first", Data("only".utf8))))

    func visible(_ scope: AccessScope, _ account: String) throws -> String? {
        for query in scope.searches(exactQuery(service, account)) {
            if let item = try backend.search(query).first {
                guard let secret = item.secret else { throw ConformanceFailure("a search with includeSecrets returned no secret") }
                return String(decoding: secret.makeData(), as: UTF8.self)
            }
        }
        return nil
    }
    try expect(try visible(first, "token") == "first", "the first identity does not read its own item first")
    try expect(try visible(second, "token") == "second", "the second identity does not read its own item first")
    try expect(try visible(second, "shared") == "shared", "an identity cannot read a shared item")
    try expect(try visible(second, "only-first") == nil, "one identity reads another's item")
    let found = try backend.search(ItemQuery(itemClass: .genericPassword,
                                             constraints: ItemAttributes([.service: .string(service),
                                                                          .accessGroup: .string(first.groupForNewItems!)])))
    try expect(found.allSatisfy { $0.attributes.string(.accessGroup) == first.groupForNewItems },
               "items found by access group report another group")

    let deleted = try backend.delete(first.changeQueries(ItemQuery(itemClass: .genericPassword))[0])
    try expect(deleted == 2, "a class-wide delete in one identity deleted \(deleted) items instead of its own 2")
    try expect(try visible(first, "token") == nil, "the identity's class-wide delete left its own item")
    try expect(try visible(second, "token") == "second", "one identity's class-wide delete removed another's item")
    try expect(try visible(first, "shared") == "shared", "an identity's class-wide delete removed a shared item")

    let updated = try backend.update(second.changeQueries(ItemQuery(itemClass: .genericPassword))[0],
                                     with: ItemChanges(attributes: ItemAttributes([.label: .string("changed")])))
    try expect(updated == 1, "a class-wide update in one identity changed \(updated) items instead of its own 1")
    let shared = try backend.search(exactQuery(service, "shared", secrets: false)).first
    try expect(shared?.attributes.string(.label) == nil, "an identity's class-wide update changed a shared item")
}
