// libcurl through dlopen: see include/CCurl.h for the contract.
//
// libcurl's headers are deliberately not included, so that building needs none. The option
// and info numbers below are libcurl's ABI (curl.h promises never to renumber them); every
// handle stays an opaque pointer.

#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// --- The libcurl ABI this file relies on (values from curl/curl.h) ----------------------------

enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015, OPT_HTTPHEADER = 10023, OPT_SSLCERT = 10025, OPT_CUSTOMREQUEST = 10036,
    OPT_POST = 47, OPT_FOLLOWLOCATION = 52, OPT_SSL_VERIFYPEER = 64, OPT_CAINFO = 10065, OPT_HTTPGET = 80,
    OPT_SSL_VERIFYHOST = 81, OPT_SSLKEY = 10087, OPT_CAPATH = 10097, OPT_NOSIGNAL = 99,
    OPT_TIMEOUT_MS = 155, OPT_CONNECTTIMEOUT_MS = 156, OPT_PROTOCOLS = 181, OPT_REDIR_PROTOCOLS = 182,
    OPT_MAXFILESIZE_LARGE = 30117, OPT_POSTFIELDSIZE_LARGE = 30120, OPT_CONNECT_TO = 10243, OPT_CAINFO_BLOB = 40309,
    BLOB_COPY = 1,
    INFO_RESPONSE_CODE = 0x200000 + 2,
    PROTO_HTTP = 1, PROTO_HTTPS = 2,
    GLOBAL_DEFAULT = 3,
    ERROR_BUFFER_SIZE = 256,
};

enum {
    E_OK = 0, E_UNSUPPORTED_PROTOCOL = 1, E_COULDNT_RESOLVE_PROXY = 5, E_COULDNT_RESOLVE_HOST = 6,
    E_COULDNT_CONNECT = 7, E_WRITE_ERROR = 23, E_OPERATION_TIMEDOUT = 28, E_SSL_CONNECT_ERROR = 35,
    E_GOT_NOTHING = 52, E_SSL_ENGINE_NOTFOUND = 53, E_SSL_ENGINE_SETFAILED = 54, E_SEND_ERROR = 55,
    E_RECV_ERROR = 56, E_SSL_CERTPROBLEM = 58, E_SSL_CIPHER = 59, E_PEER_FAILED_VERIFICATION = 60,
    E_FILESIZE_EXCEEDED = 63, E_SSL_ENGINE_INITFAILED = 66, E_SSL_CACERT_BADFILE = 77,
    E_SSL_SHUTDOWN_FAILED = 80, E_SSL_CRL_BADFILE = 82, E_SSL_ISSUER_ERROR = 83,
    E_SSL_PINNEDPUBKEYNOTMATCH = 90, E_SSL_INVALIDCERTSTATUS = 91, E_SSL_CLIENTCERT = 98,
};

struct curl_slist;
struct curl_blob { void *data; size_t len; unsigned int flags; };
typedef size_t (*WriteCallback)(char *data, size_t size, size_t count, void *context);

#define CCURL_FUNCTIONS(X) \
    X(int, curl_global_init, (long)) \
    X(void *, curl_easy_init, (void)) \
    X(void, curl_easy_cleanup, (void *)) \
    X(void, curl_easy_reset, (void *)) \
    X(int, curl_easy_setopt, (void *, int, ...)) \
    X(int, curl_easy_perform, (void *)) \
    X(int, curl_easy_getinfo, (void *, int, ...)) \
    X(const char *, curl_easy_strerror, (int)) \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist *, const char *)) \
    X(void, curl_slist_free_all, (struct curl_slist *))

#define DECLARE_POINTER(result, name, parameters) static result(*p_##name) parameters;
CCURL_FUNCTIONS(DECLARE_POINTER)
#undef DECLARE_POINTER

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
static int loaded;

static int load_functions(const char *path, char *reason, size_t reason_size) {
    // Never dlclose'd: libcurl's TLS library keeps global state that cannot be unloaded.
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *text = dlerror();
        snprintf(reason, reason_size, "%s", text != NULL ? text : path);
        return -1;
    }
#define LOOK_UP(result, name, parameters) \
    *(void **)(&p_##name) = dlsym(handle, #name); \
    if (p_##name == NULL) { \
        snprintf(reason, reason_size, "%s has no function %s", path, #name); \
        return -1; \
    }
    CCURL_FUNCTIONS(LOOK_UP)
#undef LOOK_UP
    // Once per process, before any handle: curl_global_init is not thread-safe in older
    // libcurl releases, which the mutex makes irrelevant.
    int code = p_curl_global_init(GLOBAL_DEFAULT);
    if (code != E_OK) {
        snprintf(reason, reason_size, "curl_global_init failed: %s", p_curl_easy_strerror(code));
        return -1;
    }
    return 0;
}

int ccurl_load(const char *library_path, char *reason, size_t reason_size) {
    const char *path = library_path != NULL ? library_path : "libcurl.so.4";
    char scratch[1];
    if (reason == NULL || reason_size == 0) {
        reason = scratch;
        reason_size = sizeof scratch;
    }
    pthread_mutex_lock(&load_mutex);
    int result = loaded ? 0 : load_functions(path, reason, reason_size);
    if (result == 0) loaded = 1;
    pthread_mutex_unlock(&load_mutex);
    return result;
}

void *ccurl_handle_new(void) {
    return loaded ? p_curl_easy_init() : NULL;
}

void ccurl_handle_free(void *handle) {
    if (handle != NULL && loaded) p_curl_easy_cleanup(handle);
}

// --- The response body ---------------------------------------------------------------------------

static void wipe(void *bytes, size_t length) {
    if (bytes == NULL) return;
    volatile unsigned char *cursor = bytes;
    while (length--) *cursor++ = 0;
}

typedef struct Sink {
    CCurlResponse *response;
    size_t limit;
    int too_large;
    int out_of_memory;
} Sink;

/// Appends to the body. Growing moves it, and the old copy is wiped first, because the body
/// may hold secrets. Returning less than given makes libcurl stop with CURLE_WRITE_ERROR.
static size_t write_body(char *data, size_t size, size_t count, void *context) {
    Sink *sink = context;
    CCurlResponse *response = sink->response;
    size_t length = size * count;
    if (length > sink->limit || response->length > sink->limit - length) {
        sink->too_large = 1;
        return 0;
    }
    size_t needed = response->length + length;
    if (needed > response->capacity) {
        size_t capacity = response->capacity < 4096 ? 4096 : response->capacity;
        while (capacity < needed) capacity = capacity > sink->limit / 2 ? sink->limit : capacity * 2;
        unsigned char *grown = malloc(capacity);
        if (grown == NULL) {
            sink->out_of_memory = 1;
            return 0;
        }
        if (response->length > 0) memcpy(grown, response->body, response->length);
        wipe(response->body, response->capacity);
        free(response->body);
        response->body = grown;
        response->capacity = capacity;
    }
    memcpy(response->body + response->length, data, length);
    response->length = needed;
    return length;
}

void ccurl_response_free(CCurlResponse *response) {
    if (response == NULL) return;
    wipe(response->body, response->capacity);
    free(response->body);
    response->body = NULL;
    response->length = 0;
    response->capacity = 0;
}

// --- Requests -----------------------------------------------------------------------------------

static CCurlFailure classify(int code, const char *message, int is_https) {
    switch (code) {
    case E_COULDNT_RESOLVE_PROXY: case E_COULDNT_RESOLVE_HOST: case E_COULDNT_CONNECT:
        return CCURL_FAILURE_UNREACHABLE;
    case E_OPERATION_TIMEDOUT:
        return CCURL_FAILURE_TIMED_OUT;
    case E_FILESIZE_EXCEEDED:
        return CCURL_FAILURE_TOO_LARGE;
    case E_SSL_CONNECT_ERROR: case E_SSL_ENGINE_NOTFOUND: case E_SSL_ENGINE_SETFAILED: case E_SSL_CERTPROBLEM:
    case E_SSL_CIPHER: case E_PEER_FAILED_VERIFICATION: case E_SSL_ENGINE_INITFAILED: case E_SSL_CACERT_BADFILE:
    case E_SSL_SHUTDOWN_FAILED: case E_SSL_CRL_BADFILE: case E_SSL_ISSUER_ERROR: case E_SSL_PINNEDPUBKEYNOTMATCH:
    case E_SSL_INVALIDCERTSTATUS: case E_SSL_CLIENTCERT:
        return CCURL_FAILURE_TLS;
    case E_RECV_ERROR: case E_SEND_ERROR: case E_GOT_NOTHING:
        // With TLS 1.3 a refused client certificate shows only at the first read, as an alert.
        // Over https, a connection the server drops before any answer is usually the same
        // refusal arriving as a reset, depending on timing.
        if (is_https || strstr(message, "SSL") != NULL || strstr(message, "alert") != NULL || strstr(message, "certificate") != NULL) {
            return CCURL_FAILURE_TLS;
        }
        return CCURL_FAILURE_OTHER;
    default:
        return CCURL_FAILURE_OTHER;
    }
}

#define SET(option, value) \
    do { if (failed == E_OK) failed = p_curl_easy_setopt(handle, option, value); } while (0)

int ccurl_perform(void *handle, const CCurlRequest *request, CCurlResponse *response) {
    response->status = 0;
    response->failure = CCURL_FAILURE_NONE;
    response->code = 0;
    response->message[0] = 0;
    if (!loaded || handle == NULL) {
        response->failure = CCURL_FAILURE_OTHER;
        snprintf(response->message, sizeof response->message, "libcurl is not loaded");
        return -1;
    }

    struct curl_slist *headers = NULL;
    for (size_t index = 0; index < request->header_count; index++) {
        struct curl_slist *appended = p_curl_slist_append(headers, request->headers[index]);
        if (appended == NULL) {
            p_curl_slist_free_all(headers);
            response->failure = CCURL_FAILURE_OTHER;
            snprintf(response->message, sizeof response->message, "out of memory for the request headers");
            return -1;
        }
        headers = appended;
    }

    char error_buffer[ERROR_BUFFER_SIZE];
    error_buffer[0] = 0;
    Sink sink = { response, request->max_response_bytes, 0, 0 };

    // Reset keeps the handle's live connections, so requests to one server reuse them.
    p_curl_easy_reset(handle);
    int failed = E_OK;
    SET(OPT_NOSIGNAL, 1L);  // signals are the program's; timeouts must not use SIGALRM
    SET(OPT_ERRORBUFFER, error_buffer);
    SET(OPT_URL, request->url);
    SET(OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    SET(OPT_REDIR_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    SET(OPT_FOLLOWLOCATION, 0L);
    SET(OPT_HTTPHEADER, headers);
    SET(OPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    SET(OPT_TIMEOUT_MS, request->total_timeout_ms);
    SET(OPT_MAXFILESIZE_LARGE, (int64_t)request->max_response_bytes);
    SET(OPT_WRITEFUNCTION, (WriteCallback)write_body);
    SET(OPT_WRITEDATA, &sink);
    if (request->has_body) {
        SET(OPT_POST, 1L);
        SET(OPT_POSTFIELDSIZE_LARGE, (int64_t)request->body_length);
        SET(OPT_POSTFIELDS, request->body != NULL ? (const void *)request->body : (const void *)"");
    } else {
        SET(OPT_HTTPGET, 1L);
    }
    if (strcmp(request->method, "GET") != 0 && strcmp(request->method, "POST") != 0) {
        SET(OPT_CUSTOMREQUEST, request->method);
    }
    if (request->ca_file != NULL) SET(OPT_CAINFO, request->ca_file);
    if (request->ca_path != NULL) SET(OPT_CAPATH, request->ca_path);
    struct curl_blob ca_blob = { (void *)request->ca_pem, request->ca_pem_length, BLOB_COPY };
    if (request->ca_pem != NULL) SET(OPT_CAINFO_BLOB, &ca_blob);
    if (request->client_cert != NULL) SET(OPT_SSLCERT, request->client_cert);
    if (request->client_key != NULL) SET(OPT_SSLKEY, request->client_key);
    struct curl_slist *connect_to = NULL;
    if (request->connect_to != NULL) {
        connect_to = p_curl_slist_append(NULL, request->connect_to);
        SET(OPT_CONNECT_TO, connect_to);
    }
    if (request->skip_verify) {
        SET(OPT_SSL_VERIFYPEER, 0L);
        SET(OPT_SSL_VERIFYHOST, 0L);
    }

    int code = failed != E_OK ? failed : p_curl_easy_perform(handle);
    // The handle must not keep pointers to this call's memory.
    p_curl_easy_setopt(handle, OPT_ERRORBUFFER, (char *)NULL);
    p_curl_easy_setopt(handle, OPT_HTTPHEADER, (struct curl_slist *)NULL);
    p_curl_easy_setopt(handle, OPT_CONNECT_TO, (struct curl_slist *)NULL);
    p_curl_easy_setopt(handle, OPT_WRITEDATA, (void *)NULL);
    p_curl_slist_free_all(headers);
    if (connect_to != NULL) p_curl_slist_free_all(connect_to);

    response->code = code;
    if (code == E_OK) {
        long status = 0;
        p_curl_easy_getinfo(handle, INFO_RESPONSE_CODE, &status);
        response->status = status;
        return 0;
    }
    const char *text = error_buffer[0] != 0 ? error_buffer : p_curl_easy_strerror(code);
    snprintf(response->message, sizeof response->message, "%s", text);
    // Strip the newline libcurl sometimes leaves at the end.
    size_t length = strlen(response->message);
    while (length > 0 && (response->message[length - 1] == '\n' || response->message[length - 1] == '\r')) {
        response->message[--length] = 0;
    }
    if (sink.too_large || code == E_FILESIZE_EXCEEDED) {
        response->failure = CCURL_FAILURE_TOO_LARGE;
    } else if (sink.out_of_memory) {
        response->failure = CCURL_FAILURE_OTHER;
        snprintf(response->message, sizeof response->message, "out of memory for the response body");
    } else {
        int is_https = strncasecmp(request->url, "https:", 6) == 0;
        response->failure = classify(code, response->message, is_https);
        if (is_https && response->failure == CCURL_FAILURE_TLS && (code == E_SEND_ERROR || code == E_RECV_ERROR || code == E_GOT_NOTHING)) {
            size_t used = strlen(response->message);
            snprintf(response->message + used, sizeof response->message - used,
                     "; the server ended the TLS connection, as one that requires a client certificate does");
        }
    }
    // A partial body is no answer; wipe it now.
    ccurl_response_free(response);
    return -1;
}
