// The real libsecret and GLib headers (libsecret-1-dev), for the test-only ABI check of the
// declarations CShims/CSecretService makes by hand. Nothing in the library uses them.
#include <glib.h>
#include <libsecret/secret.h>
