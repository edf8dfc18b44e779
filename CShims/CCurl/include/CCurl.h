#ifndef LINUX_KEYCHAIN_CCURL_H
#define LINUX_KEYCHAIN_CCURL_H
// libcurl, loaded with dlopen at first use, for the vault backend's HTTP requests.
//
// Nothing here needs libcurl's headers and nothing links against it, so a program built with
// LinuxKeychain maps libcurl (and its TLS and compression libraries) only once it talks to a
// Vault server. Requests are synchronous, on the calling thread: no event loop and no thread
// pool, so a caller on any kind of thread is answered.
//
// Threading: a handle or a lane is used by one thread at a time; different ones may be used at once.
// Descriptors: every socket opened for a handle or a lane is close-on-exec, so a program that
// starts another never hands it a connection to the server.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Why a request got no HTTP answer.
typedef enum CCurlFailure {
    CCURL_FAILURE_NONE = 0,
    /// Anything not listed below; the message says what.
    CCURL_FAILURE_OTHER = 1,
    /// The connection could not be made: refused, unknown host, no route.
    CCURL_FAILURE_UNREACHABLE = 2,
    /// The connection or the whole transfer passed its deadline.
    CCURL_FAILURE_TIMED_OUT = 3,
    /// The TLS handshake failed: an untrusted or unreadable certificate, a refused client certificate.
    CCURL_FAILURE_TLS = 4,
    /// The response body was larger than the request allowed; the transfer was stopped there.
    CCURL_FAILURE_TOO_LARGE = 5,
    /// The connection closed before any answer came, after the request went out: the server
    /// stopped, crashed or restarted. The request may have been applied.
    CCURL_FAILURE_CONNECTION_LOST = 6,
} CCurlFailure;

/// One request. Every pointer is borrowed for the duration of ccurl_perform only.
typedef struct CCurlRequest {
    /// "GET", "POST", "PUT", "DELETE" or any other method name.
    const char *method;
    const char *url;
    /// Header lines, "Name: value".
    const char *const *headers;
    size_t header_count;
    /// Whether there is a request body, and the body, sent as is (not copied); `body` may be
    /// NULL when `body_length` is 0.
    int has_body;
    const unsigned char *body;
    size_t body_length;
    /// Deadline for the connection (TCP and TLS), and for the whole request, in milliseconds.
    long connect_timeout_ms;
    long total_timeout_ms;
    /// A response body longer than this fails with CCURL_FAILURE_TOO_LARGE.
    size_t max_response_bytes;
    /// TLS settings; NULL (or 0) for libcurl's defaults (the system trust store).
    const char *ca_file;
    const char *ca_path;
    /// PEM certificates to trust, in memory (copied by libcurl), in place of ca_file; NULL for none.
    const unsigned char *ca_pem;
    size_t ca_pem_length;
    const char *client_cert;
    const char *client_key;
    /// "HOST:PORT:CONNECT-HOST:CONNECT-PORT": connect elsewhere than the URL's host, which
    /// stays the name sent in SNI and checked against the certificate.
    const char *connect_to;
    int skip_verify;
} CCurlRequest;

/// The most bytes of an X-Vault-Index response header kept, its terminating NUL included.
#define CCURL_INDEX_CAPACITY 1024

/// One answer. The body is in memory that is wiped whenever it grows and when freed.
typedef struct CCurlResponse {
    /// The HTTP status, or 0 when failure is not NONE.
    long status;
    unsigned char *body;
    size_t length;
    size_t capacity;
    CCurlFailure failure;
    /// libcurl's CURLcode, for messages.
    int code;
    /// libcurl's description of the failure; names hosts and files, never request contents.
    char message[512];
    /// The answer's X-Vault-Index header (OpenBao's storage index, not a secret), trimmed, or
    /// empty when it had none or one too long to keep.
    char vault_index[CCURL_INDEX_CAPACITY];
} CCurlResponse;

/// Loads libcurl (`library_path`, or libcurl.so.4 when NULL) and initialises it once.
/// Returns 0, or -1 with the reason in `reason`. Thread-safe; a failure is not remembered.
int ccurl_load(const char *library_path, char *reason, size_t reason_size);

/// A new easy handle, or NULL. Run by ccurl_perform, it keeps its own connections alive
/// between requests; run on a lane, it uses the lane's.
/// Only after a successful ccurl_load.
void *ccurl_handle_new(void);
void ccurl_handle_free(void *handle);

/// Performs `request` on `handle` and fills `response` (zero it first). Returns 0 when an
/// HTTP answer arrived, else -1 with response->failure set. Redirects are never followed and
/// only http and https are spoken. Free the response with ccurl_response_free even on failure.
int ccurl_perform(void *handle, const CCurlRequest *request, CCurlResponse *response);

/// The most requests ccurl_perform_all runs at once.
#define CCURL_MAXIMUM_PARALLEL 8

/// A lane (a libcurl multi handle), or NULL: the connections of the requests run on it stay
/// open in it, so the next request on the same lane reuses them, whichever handle it runs on.
/// A lane keeps at most one connection per server: requests side by side share it as HTTP/2
/// streams, or over HTTP/1.1 take turns on it. Only after a successful ccurl_load.
void *ccurl_lane_new(void);
/// Closes the lane's connections; no request may be running on it.
void ccurl_lane_free(void *lane);

/// Performs `count` requests at once on `lane` and the calling thread, each on its own handle
/// (distinct handles, none in use elsewhere), and fills each response as ccurl_perform does.
/// Returns 0 when every request got an HTTP answer, else -1 (see each response's failure).
int ccurl_perform_all(void *lane, void *const *handles, const CCurlRequest *requests, CCurlResponse *responses, size_t count);

/// Wipes and frees the body.
void ccurl_response_free(CCurlResponse *response);

#ifdef __cplusplus
}
#endif

#endif
