import Foundation
import KeychainConformance
import Testing

/// Several `keychain` processes start at once on a session keyring full of layout-1 items, as
/// after an upgrade: each one's first lookup lists the keyring and migrates what it finds
/// (`LayoutThreeRecord.swift`), while the others read the items. In the end every item is
/// there once, in layout 3, with its secret, no item keyring is left, and the record is there.
/// (The narrow windows of a lookup racing a migration are hit far more often by threads of one
/// process: `LayoutOneMigrationRaceTests`.)
@Suite("kernel keyring: processes racing the first listing")
struct LayoutOneMigrationProcessRaceTests {
    @Test func processesRacingTheFirstListingLeaveEveryItemOnceInLayoutThree() throws {
        guard let cli = ConformanceContext.locateCLI() else {
            if ConformanceCase.unavailableIsFailure { Issue.record("the keychain executable was not built") }
            try Test.cancel("the keychain executable was not built")
        }
        // In a session keyring of its own, which no earlier lookup has given the record.
        let script = #"""
        exec </dev/null
        cli=$1; items=$2; processes=$3
        target=$(keyctl id @s) || exit 90
        i=0
        while [ "$i" -lt "$items" ]; do
            ring=$(keyctl newring "linux-keychain:genp:race$i:acct" @s) || exit 91
            printf 'secret-%d' "$i" | keyctl padd user "linux-keychain:genp:race$i:acct" "$ring" >/dev/null || exit 92
            printf '{"attributes":{"acct":"acct","svce":"race%d"},"format":1,"keyring":%s,"secretIsEmpty":false}' "$i" "$target" \
                | keyctl padd user linux-keychain-attributes "$ring" >/dev/null || exit 93
            i=$((i + 1))
        done
        p=0
        while [ "$p" -lt "$processes" ]; do
            (
                "$cli" --backend keyring get "absent$p" acct >/dev/null 2>&1
                [ $? -eq 3 ] || echo "bad: the miss of process $p did not exit 3"
                j=0
                while [ "$j" -lt "$items" ]; do
                    got=$("$cli" --backend keyring get "race$j" acct 2>&1)
                    [ "$got" = "secret-$j" ] || echo "bad: process $p read race$j as: $got"
                    j=$((j + 1))
                done
            ) &
            p=$((p + 1))
        done
        wait
        j=0
        while [ "$j" -lt "$items" ]; do
            keyctl search @s user "linux-keychain:genp:race$j:acct" >/dev/null 2>&1 || echo "bad: race$j has no item key"
            keyctl search @s user "linux-keychain-attributes:genp:race$j:acct" >/dev/null 2>&1 && echo "bad: race$j has an attributes key"
            keyctl search @s keyring "linux-keychain:genp:race$j:acct" >/dev/null 2>&1 && echo "bad: race$j still has its item keyring"
            j=$((j + 1))
        done
        keyctl search @s user "linux-keychain:layout-3:$target" >/dev/null 2>&1 || echo "bad: no layout-3 record"
        echo "keys: $(keyctl rlist @s | wc -w)"
        """#
        let items = 20
        let result = try runInOwnSessionKeyring(script, cli: cli, ["\(items)", "4"], timeout: 60)
        #expect(result.status == 0, "the script failed: \(result.status) timed out \(result.timedOut) \(result.errorText) \(result.outputText)")
        let lines = result.outputText.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("bad") }.isEmpty, "\(lines.filter { $0.hasPrefix("bad") })")
        // One key per item, the tagged-items marker, the layout-3 record and one item record:
        // nothing twice, and no lock left behind.
        #expect(lines.contains("keys: \(items + 3)"), "\(lines.last ?? "")")
    }
}
