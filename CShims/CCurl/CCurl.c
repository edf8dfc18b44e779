// libcurl through dlopen: see include/CCurl.h for the contract.
//
// libcurl's headers are deliberately not included, so that building needs none: CurlABI.h
// declares the part of libcurl's ABI used here, and Tests/CCurlABICheck checks it.

#include "CCurl.h"
#include "CDynamicLibrary.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>

// --- The libcurl ABI this file relies on: see CurlABI.h ----------------------------------------

#include "CurlABI.h"

enum {
    /// Not a CURLcode: a transfer on a lane that libcurl never reported finished.
    UNFINISHED = -1,
};

CCURL_FUNCTIONS(CDYNAMICLIBRARY_DECLARE_POINTER)

static pthread_mutex_t load_mutex = PTHREAD_MUTEX_INITIALIZER;
// Set once, under load_mutex, after every function pointer is; read without the mutex by
// every call, so it is atomic: acquire pairs with the release store and makes the pointers
// visible to a thread that never took the mutex.
static atomic_int loaded;

static int is_loaded(void) {
    return atomic_load_explicit(&loaded, memory_order_acquire);
}

static int load_functions(const char *path, char *reason, size_t reason_size) {
    // Never closed: libcurl's TLS library keeps global state that cannot be unloaded.
    void *handle = cdynamiclibrary_open(path, reason, reason_size);
    if (handle == NULL) return -1;
    const char *requirement = "";
    CCURL_FUNCTIONS(CDYNAMICLIBRARY_LOOK_UP)
    // Once per process, before any handle: curl_global_init is not thread-safe in older
    // libcurl releases, which the mutex makes irrelevant.
    int code = p_curl_global_init(GLOBAL_DEFAULT);
    if (code != E_OK) {
        if (reason != NULL && reason_size > 0) {
            snprintf(reason, reason_size, "curl_global_init failed: %s", p_curl_easy_strerror(code));
        }
        return -1;
    }
    return 0;
}

int ccurl_load(const char *library_path, char *reason, size_t reason_size) {
    const char *path = library_path != NULL ? library_path : "libcurl.so.4";
    pthread_mutex_lock(&load_mutex);
    int result = is_loaded() ? 0 : load_functions(path, reason, reason_size);
    if (result == 0) atomic_store_explicit(&loaded, 1, memory_order_release);
    pthread_mutex_unlock(&load_mutex);
    return result;
}

void *ccurl_handle_new(void) {
    return is_loaded() ? p_curl_easy_init() : NULL;
}

void ccurl_handle_free(void *handle) {
    if (handle != NULL && is_loaded()) p_curl_easy_cleanup(handle);
}

// --- Close-on-exec ---------------------------------------------------------------------------
//
// A program that starts another must not hand it a connection to Vault, so every descriptor
// libcurl opens for us is close-on-exec.

/// Opens libcurl's sockets with SOCK_CLOEXEC, atomically, so no fork in another thread sees one
/// without it. libcurl (7.88, Debian 12) opens its own without the flag.
static CurlSocket open_socket(void *context, CurlSocketPurpose purpose, struct curl_sockaddr_start *address) {
    (void)context;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/// The open descriptors, from /proc/self/fd, in `found` (up to `capacity`, ascending order
/// not promised); the listing's own descriptor is left out. Returns how many, or -1 when
/// /proc cannot be read.
static int open_descriptors(int *found, int capacity) {
    DIR *directory = opendir("/proc/self/fd");
    if (directory == NULL) return -1;
    int own = dirfd(directory);
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL && count < capacity) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        int descriptor = atoi(entry->d_name);
        if (descriptor != own) found[count++] = descriptor;
    }
    closedir(directory);
    return count;
}

enum { DESCRIPTORS_SEEN = 4096 };

/// Runs curl_multi_init and marks close-on-exec the sockets it opened without the flag: the
/// socketpair libcurl creates to wake a multi handle, which no option reaches. They are told
/// apart as the sockets open afterwards and not before, so a socket another thread opens in
/// that moment without the flag gets it too; libcurl opens nothing else here.
static void *multi_init_close_on_exec(void) {
    int *before = malloc(sizeof(int) * DESCRIPTORS_SEEN);
    int *after = malloc(sizeof(int) * DESCRIPTORS_SEEN);
    int before_count = before != NULL && after != NULL ? open_descriptors(before, DESCRIPTORS_SEEN) : -1;
    void *multi = p_curl_multi_init();
    int after_count = multi != NULL && before_count >= 0 ? open_descriptors(after, DESCRIPTORS_SEEN) : -1;
    for (int index = 0; index < after_count; index++) {
        int descriptor = after[index], seen = 0;
        for (int earlier = 0; earlier < before_count && !seen; earlier++) seen = before[earlier] == descriptor;
        struct stat status;
        if (seen || fstat(descriptor, &status) != 0 || !S_ISSOCK(status.st_mode)) continue;
        int flags = fcntl(descriptor, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC);
    }
    free(before);
    free(after);
    return multi;
}

void *ccurl_lane_new(void) {
    if (!is_loaded()) return NULL;
    void *multi = multi_init_close_on_exec();
    if (multi == NULL) return NULL;
    // One connection per server: over HTTP/1.1 a request sent beside another waits for the
    // open connection instead of paying a TCP (and TLS) handshake for a second one; over
    // HTTP/2 both share it as streams.
    if (p_curl_multi_setopt(multi, MOPT_MAX_HOST_CONNECTIONS, 1L) != E_OK) {
        p_curl_multi_cleanup(multi);
        return NULL;
    }
    return multi;
}

void ccurl_lane_free(void *lane) {
    if (lane != NULL && is_loaded()) p_curl_multi_cleanup(lane);
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

/// Whether the transfer ended with the connection closed before any answer came: the shapes a
/// server's refusal of the TLS handshake takes after it, depending on timing and on whether HTTP/2
/// was negotiated (over HTTP/2 a TLS 1.3 alert ends the stream, not the request).
static int ended_unanswered(int code, long status) {
    switch (code) {
    case E_RECV_ERROR: case E_SEND_ERROR: case E_GOT_NOTHING: case E_HTTP2: case E_HTTP2_STREAM:
        return 1;
    case E_PARTIAL_FILE:
        return status == 0;
    default:
        return 0;
    }
}

/// `new_connection`: whether this transfer opened a connection of its own. TLS 1.3 shows a
/// refused client certificate only after the handshake, at the first read, so a new https
/// connection closed unanswered is that refusal; a reused one closing is not.
static CCurlFailure classify(int code, long status, const char *message, int is_https, int new_connection) {
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
    default:
        if (!ended_unanswered(code, status)) return CCURL_FAILURE_OTHER;
        if ((is_https && new_connection) || strstr(message, "SSL") != NULL || strstr(message, "alert") != NULL
            || strstr(message, "certificate") != NULL) {
            return CCURL_FAILURE_TLS;
        }
        return CCURL_FAILURE_CONNECTION_LOST;
    }
}

/// What one request in flight needs kept alive until it is finished.
typedef struct Transfer {
    void *handle;
    const CCurlRequest *request;
    CCurlResponse *response;
    struct curl_slist *headers;
    struct curl_slist *connect_to;
    CurlBlob ca_blob;
    /// How much of the request body has been handed to libcurl.
    size_t body_sent;
    Sink sink;
    char error_buffer[ERROR_BUFFER_SIZE];
} Transfer;

/// Hands libcurl the next part of the request body. There is deliberately no seek callback:
/// libcurl sends a request again on a new connection when a reused one closes before any
/// answer, and a write the server may already have applied must not be applied twice, so
/// libcurl cannot rewind a body and fails the transfer with CURLE_SEND_FAIL_REWIND instead.
/// Requests without a body (reads, deletes) are still sent again, which is safe.
static size_t read_body(char *buffer, size_t size, size_t count, void *context) {
    Transfer *transfer = context;
    size_t left = transfer->request->body_length - transfer->body_sent;
    size_t length = size * count < left ? size * count : left;
    if (length > 0) memcpy(buffer, transfer->request->body + transfer->body_sent, length);
    transfer->body_sent += length;
    return length;
}

/// Keeps the X-Vault-Index header of the answer; every other header is ignored. A header
/// block that follows another (after a 100 Continue) replaces what the first one gave.
static size_t read_header(char *data, size_t size, size_t count, void *context) {
    CCurlResponse *response = context;
    size_t length = size * count;
    static const char name[] = "x-vault-index:";
    size_t name_length = sizeof name - 1;
    if (length >= 5 && strncasecmp(data, "HTTP/", 5) == 0) response->vault_index[0] = 0;
    if (length <= name_length || strncasecmp(data, name, name_length) != 0) return length;
    const char *value = data + name_length;
    size_t value_length = length - name_length;
    while (value_length > 0 && (*value == ' ' || *value == '\t')) { value++; value_length--; }
    while (value_length > 0 && (value[value_length - 1] == '\r' || value[value_length - 1] == '\n' ||
                                value[value_length - 1] == ' ' || value[value_length - 1] == '\t')) value_length--;
    if (value_length < sizeof response->vault_index) {
        memcpy(response->vault_index, value, value_length);
        response->vault_index[value_length] = 0;
    } else {
        response->vault_index[0] = 0;
    }
    return length;
}

#define SET(option, value) \
    do { if (failed == E_OK) failed = p_curl_easy_setopt(handle, option, value); } while (0)

/// Sets every option of `transfer->request` on its handle. Returns a CURLcode; on failure
/// the transfer must still be finished.
static int prepare(Transfer *transfer) {
    void *handle = transfer->handle;
    const CCurlRequest *request = transfer->request;
    CCurlResponse *response = transfer->response;
    response->status = 0;
    response->failure = CCURL_FAILURE_NONE;
    response->code = 0;
    response->message[0] = 0;
    response->vault_index[0] = 0;
    transfer->error_buffer[0] = 0;
    transfer->sink = (Sink){ response, request->max_response_bytes, 0, 0 };

    for (size_t index = 0; index < request->header_count; index++) {
        struct curl_slist *appended = p_curl_slist_append(transfer->headers, request->headers[index]);
        if (appended == NULL) return E_OUT_OF_MEMORY;
        transfer->headers = appended;
    }

    // Reset keeps the handle's live connections, so requests to one server reuse them.
    p_curl_easy_reset(handle);
    int failed = E_OK;
    SET(OPT_NOSIGNAL, 1L);  // signals are the program's; timeouts must not use SIGALRM
    SET(OPT_OPENSOCKETFUNCTION, (OpenSocketCallback)open_socket);
    SET(OPT_ERRORBUFFER, transfer->error_buffer);
    SET(OPT_URL, request->url);
    SET(OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    SET(OPT_REDIR_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    SET(OPT_FOLLOWLOCATION, 0L);
    // A request waits for a connection being opened to learn whether it can share it (HTTP/2)
    // rather than opening one of its own.
    SET(OPT_PIPEWAIT, 1L);
    SET(OPT_HTTPHEADER, transfer->headers);
    SET(OPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    SET(OPT_TIMEOUT_MS, request->total_timeout_ms);
    SET(OPT_MAXFILESIZE_LARGE, (int64_t)request->max_response_bytes);
    SET(OPT_WRITEFUNCTION, (WriteCallback)write_body);
    SET(OPT_WRITEDATA, &transfer->sink);
    SET(OPT_HEADERFUNCTION, (HeaderCallback)read_header);
    SET(OPT_HEADERDATA, response);
    if (request->has_body) {
        SET(OPT_POST, 1L);
        SET(OPT_POSTFIELDSIZE_LARGE, (int64_t)request->body_length);
        transfer->body_sent = 0;
        SET(OPT_READFUNCTION, (ReadCallback)read_body);
        SET(OPT_READDATA, transfer);
    } else {
        SET(OPT_HTTPGET, 1L);
    }
    if (strcmp(request->method, "GET") != 0 && strcmp(request->method, "POST") != 0) {
        SET(OPT_CUSTOMREQUEST, request->method);
    }
    if (request->ca_file != NULL) SET(OPT_CAINFO, request->ca_file);
    if (request->ca_path != NULL) SET(OPT_CAPATH, request->ca_path);
    transfer->ca_blob = (CurlBlob){ (void *)request->ca_pem, request->ca_pem_length, BLOB_COPY };
    if (request->ca_pem != NULL) SET(OPT_CAINFO_BLOB, &transfer->ca_blob);
    if (request->client_cert != NULL) SET(OPT_SSLCERT, request->client_cert);
    if (request->client_key != NULL) SET(OPT_SSLKEY, request->client_key);
    if (request->connect_to != NULL) {
        transfer->connect_to = p_curl_slist_append(NULL, request->connect_to);
        if (transfer->connect_to == NULL) return E_OUT_OF_MEMORY;
        SET(OPT_CONNECT_TO, transfer->connect_to);
    }
    if (request->skip_verify) {
        SET(OPT_SSL_VERIFYPEER, 0L);
        SET(OPT_SSL_VERIFYHOST, 0L);
    }
    return failed;
}

/// Fills the response from the transfer's CURLcode and releases what it held.
static int finish(Transfer *transfer, int code) {
    void *handle = transfer->handle;
    const CCurlRequest *request = transfer->request;
    CCurlResponse *response = transfer->response;
    // The handle must not keep pointers to this call's memory.
    p_curl_easy_setopt(handle, OPT_ERRORBUFFER, (char *)NULL);
    p_curl_easy_setopt(handle, OPT_HTTPHEADER, (struct curl_slist *)NULL);
    p_curl_easy_setopt(handle, OPT_CONNECT_TO, (struct curl_slist *)NULL);
    p_curl_easy_setopt(handle, OPT_WRITEDATA, (void *)NULL);
    p_curl_easy_setopt(handle, OPT_HEADERDATA, (void *)NULL);
    p_curl_easy_setopt(handle, OPT_READDATA, (void *)NULL);
    if (transfer->headers != NULL) p_curl_slist_free_all(transfer->headers);
    if (transfer->connect_to != NULL) p_curl_slist_free_all(transfer->connect_to);
    transfer->headers = NULL;
    transfer->connect_to = NULL;

    response->code = code;
    if (code == E_OK) {
        long status = 0;
        p_curl_easy_getinfo(handle, INFO_RESPONSE_CODE, &status);
        response->status = status;
        return 0;
    }
    const char *text = transfer->error_buffer[0] != 0 ? transfer->error_buffer : p_curl_easy_strerror(code);
    snprintf(response->message, sizeof response->message, "%s", text);
    // Strip the newline libcurl sometimes leaves at the end.
    size_t length = strlen(response->message);
    while (length > 0 && (response->message[length - 1] == '\n' || response->message[length - 1] == '\r')) {
        response->message[--length] = 0;
    }
    if (transfer->sink.too_large || code == E_FILESIZE_EXCEEDED) {
        response->failure = CCURL_FAILURE_TOO_LARGE;
    } else if (code == E_SEND_FAIL_REWIND) {
        // See read_body: the request went out on a connection that then closed unanswered.
        response->failure = CCURL_FAILURE_CONNECTION_LOST;
        snprintf(response->message, sizeof response->message, "closed while the request body was sent");
    } else if (transfer->sink.out_of_memory || code == E_OUT_OF_MEMORY) {
        response->failure = CCURL_FAILURE_OTHER;
        snprintf(response->message, sizeof response->message, "out of memory for the request or its answer");
    } else {
        int is_https = strncasecmp(request->url, "https:", 6) == 0;
        long status = 0, connects = 0;
        p_curl_easy_getinfo(handle, INFO_RESPONSE_CODE, &status);
        p_curl_easy_getinfo(handle, INFO_NUM_CONNECTS, &connects);
        response->failure = classify(code, status, response->message, is_https, connects > 0);
        if (is_https && response->failure == CCURL_FAILURE_TLS && ended_unanswered(code, status)) {
            size_t used = strlen(response->message);
            snprintf(response->message + used, sizeof response->message - used,
                     "; the server ended the TLS connection, as one that requires a client certificate does");
        }
    }
    // A partial body is no answer; wipe it now.
    ccurl_response_free(response);
    return -1;
}

static int not_loaded(CCurlResponse *response) {
    response->status = 0;
    response->failure = CCURL_FAILURE_OTHER;
    snprintf(response->message, sizeof response->message, "libcurl is not loaded");
    return -1;
}

int ccurl_perform(void *handle, const CCurlRequest *request, CCurlResponse *response) {
    if (!loaded || handle == NULL) return not_loaded(response);
    Transfer transfer = { .handle = handle, .request = request, .response = response };
    int code = prepare(&transfer);
    if (code == E_OK) code = p_curl_easy_perform(handle);
    return finish(&transfer, code);
}

int ccurl_perform_all(void *lane, void *const *handles, const CCurlRequest *requests, CCurlResponse *responses, size_t count) {
    if (!is_loaded() || lane == NULL || count == 0 || count > CCURL_MAXIMUM_PARALLEL) {
        for (size_t index = 0; index < count; index++) not_loaded(&responses[index]);
        return -1;
    }
    Transfer transfers[CCURL_MAXIMUM_PARALLEL];
    int codes[CCURL_MAXIMUM_PARALLEL];
    int added[CCURL_MAXIMUM_PARALLEL];
    void *multi = lane;
    for (size_t index = 0; index < count; index++) {
        transfers[index] = (Transfer){ .handle = handles[index], .request = &requests[index], .response = &responses[index] };
        codes[index] = handles[index] == NULL ? E_FAILED_INIT : prepare(&transfers[index]);
        added[index] = codes[index] == E_OK && p_curl_multi_add_handle(multi, handles[index]) == 0;
        if (codes[index] == E_OK && !added[index]) codes[index] = E_OUT_OF_MEMORY;
        if (added[index]) codes[index] = UNFINISHED;
    }
    // Every transfer has its own deadline (OPT_TIMEOUT_MS), which the multi handle enforces.
    int running = 1;
    int driving = 0;
    const char *driving_call = NULL;
    while (running > 0) {
        if ((driving = p_curl_multi_perform(multi, &running)) != 0) { driving_call = "curl_multi_perform"; break; }
        if (running > 0 && (driving = p_curl_multi_poll(multi, NULL, 0, 1000, NULL)) != 0) { driving_call = "curl_multi_poll"; break; }
    }
    int queued = 0;
    CurlMessage *message;
    while ((message = p_curl_multi_info_read(multi, &queued)) != NULL) {
        if (message->msg != MSG_DONE) continue;
        for (size_t index = 0; index < count; index++) {
            if (added[index] && handles[index] == message->easy_handle) codes[index] = message->result;
        }
    }
    int result = 0;
    for (size_t index = 0; index < count; index++) {
        // Removing a finished transfer leaves its connection open in the lane for the next one.
        if (added[index]) p_curl_multi_remove_handle(multi, handles[index]);
        if (codes[index] == UNFINISHED) {
            // Removed unfinished, its connection is closed, so the lane's next request opens a new one.
            if (driving_call != NULL) {
                snprintf(transfers[index].error_buffer, ERROR_BUFFER_SIZE, "%s failed before the request finished: %s",
                         driving_call, p_curl_multi_strerror(driving));
            } else {
                snprintf(transfers[index].error_buffer, ERROR_BUFFER_SIZE, "libcurl never reported the request finished");
            }
        }
        if (finish(&transfers[index], codes[index]) != 0) result = -1;
    }
    return result;
}
