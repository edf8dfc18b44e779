#!/usr/bin/env bash
# Starts KeePassXC headless as the Secret Service provider on the current session bus, and
# waits until it owns org.freedesktop.secrets. Used by with-services.sh --provider=keepassxc;
# HOME, XDG_CONFIG_HOME and the bus must already be the throwaway ones.
#
# Usage: start-keepassxc.sh DIRECTORY
#   DIRECTORY receives the database (keepassxc.kdbx), KeePassXC's TMPDIR and its log; the
#   script prints KeePassXC's process id on stdout.
#
# What KeePassXC needs to serve headless:
#   - FdoSecrets enabled in keepassxc.ini, with the access and delete confirmations and the
#     notifications off (each would otherwise wait for a click no one can give);
#   - a database whose group is exposed to the Secret Service: the group's UUID, in braces,
#     in the database's custom data as FDO_SECRETS_EXPOSED_GROUP. keepassxc-cli cannot set
#     custom data, so the new database is exported to XML, edited, and imported again;
#   - a TMPDIR of its own, where its single-instance lock lives, so that no other KeePassXC
#     on the machine answers instead;
#   - QT_QPA_PLATFORM=offscreen, since there is no display.
# Saving after every change (KeePassXC's default) is off: KeePassXC 2.7.4 writes the database
# on a worker thread while it goes on serving D-Bus, and writes that arrive meanwhile make it
# crash (see docs/secret-service.md). The tests need a provider that stays up; the database is
# thrown away anyway.
set -euo pipefail

directory=$1
password="linux-keychain-test"
mkdir -p "$directory/tmp" "$XDG_CONFIG_HOME/keepassxc"
chmod 700 "$directory" "$directory/tmp"

cat >"$XDG_CONFIG_HOME/keepassxc/keepassxc.ini" <<'EOF'
[General]
ConfigVersion=2
SingleInstance=false
RememberLastDatabases=false
OpenPreviousDatabasesOnStartup=false
AutoSaveAfterEveryChange=false
AutoSaveOnExit=false
UpdateCheckMessageShown=true

[GUI]
CheckForUpdates=false
ShowTrayIcon=false
MinimizeOnStartup=true

[Security]
LockDatabaseIdle=false
LockDatabaseScreenLock=false

[FdoSecrets]
Enabled=true
ShowNotification=false
ConfirmAccessItem=false
ConfirmDeleteItem=false
UnlockBeforeSearch=false
EOF

empty="$directory/empty.kdbx" xml="$directory/exposed.xml" database="$directory/keepassxc.kdbx"
# The smallest key-derivation time keepassxc-cli accepts: the tests unlock it once.
# keepassxc-cli prompts on stderr even with -q; its messages go to a log shown on failure.
cli_log="$directory/keepassxc-cli.log"
trap 'echo "start-keepassxc: keepassxc-cli failed:" >&2; cat "$cli_log" >&2' ERR
printf '%s\n%s\n' "$password" "$password" | keepassxc-cli db-create -q -p -t 100 "$empty" >/dev/null 2>>"$cli_log"
echo "$password" | keepassxc-cli export -q -f xml "$empty" >"$xml" 2>>"$cli_log"
python3 - "$xml" <<'EOF'
# Exposes the root group, and turns the recycle bin off so that deleted items are gone, as
# they are in gnome-keyring, rather than kept (and counted) in a bin.
import base64, sys, uuid
import xml.etree.ElementTree as tree
path = sys.argv[1]
document = tree.parse(path)
meta = document.find("Meta")
root_group = document.find("Root/Group")
group_uuid = uuid.UUID(bytes=base64.b64decode(root_group.find("UUID").text))
meta.find("RecycleBinEnabled").text = "False"
custom = meta.find("CustomData")
if custom is None:
    custom = tree.SubElement(meta, "CustomData")
item = tree.SubElement(custom, "Item")
tree.SubElement(item, "Key").text = "FDO_SECRETS_EXPOSED_GROUP"
tree.SubElement(item, "Value").text = "{" + str(group_uuid) + "}"
document.write(path, encoding="UTF-8", xml_declaration=True)
EOF
printf '%s\n%s\n' "$password" "$password" | keepassxc-cli import -q -p "$xml" "$database" >/dev/null 2>>"$cli_log"
rm -f "$empty" "$xml"
trap - ERR

# No display, no tray, and our own TMPDIR; the password comes on stdin, never on a command line.
echo "$password" | TMPDIR="$directory/tmp" QT_QPA_PLATFORM=offscreen \
    keepassxc --pw-stdin "$database" >"$directory/keepassxc.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
    if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetNameOwner string:org.freedesktop.secrets >/dev/null 2>&1; then
        # Owning the name comes before the database is unlocked, its collection exported and
        # the default alias pointing at it: wait for all three, as a client's first call needs them.
        default=$(dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
            org.freedesktop.Secret.Service.ReadAlias string:default 2>/dev/null \
            | awk -F'"' '/object path/ {print $2}')
        if [ -n "$default" ] && [ "$default" != "/" ] \
            && dbus-send --session --print-reply --dest=org.freedesktop.secrets "$default" \
                org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked 2>/dev/null \
                | grep -q 'boolean false'; then
            echo "$pid"
            exit 0
        fi
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
echo "start-keepassxc: KeePassXC did not start serving the Secret Service; its log:" >&2
cat "$directory/keepassxc.log" >&2
kill "$pid" 2>/dev/null || true
exit 1
