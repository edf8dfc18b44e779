#ifndef LINUX_KEYCHAIN_CURL_ABI_H
#define LINUX_KEYCHAIN_CURL_ABI_H
// The libcurl ABI that CCurl.c relies on, declared by hand so that building needs no libcurl
// headers: the functions, the option, error and info numbers (curl.h promises never to
// renumber them), the callback types and the layouts of CURLMsg, curl_blob and the start of
// curl_sockaddr. Handles stay opaque pointers (curl.h declares CURL and CURLM as void too).
//
// Private to the shim (not under include/). Tests/CCurlABICheck compiles this file beside the
// real <curl/curl.h> and checks every prototype, number and layout here with static assertions,
// so a wrong declaration fails the build of the tests. The lists are X-macros so that the
// check walks the very entries the shim uses and cannot drift from them.

#include <stddef.h>
#include <stdint.h>

// libcurl's enums, which the check maps to their curl.h names: CURLcode, CURLoption, CURLINFO,
// CURLMcode, CURLMoption, CURLMSG, curlsocktype and curl_socket_t. Same size as curl.h's; int
// here because CCurl.c keeps a negative sentinel among its codes.
typedef int CurlCode;
typedef int CurlOption;
typedef int CurlInfo;
typedef int CurlMultiCode;
typedef int CurlMultiOption;
typedef int CurlMessageKind;
typedef int CurlSocketPurpose;
typedef int CurlSocket;

struct curl_slist;
struct curl_waitfd;

/// struct curl_blob, for CURLOPT_CAINFO_BLOB.
typedef struct CurlBlob { void *data; size_t len; unsigned int flags; } CurlBlob;
/// The start of struct curl_sockaddr: what the socket to open is for.
struct curl_sockaddr_start { int family; int socktype; int protocol; };
/// CURLMsg: which transfer finished, and its CURLcode.
typedef struct CurlMessage {
    CurlMessageKind msg;
    void *easy_handle;
    union { void *whatever; CurlCode result; };
} CurlMessage;

/// The callbacks CCurl.c hands libcurl, as X(our name, curl.h's name, result, parameters).
#define CCURL_CALLBACKS(X) \
    X(WriteCallback, curl_write_callback, size_t, (char *, size_t, size_t, void *)) \
    X(HeaderCallback, curl_write_callback, size_t, (char *, size_t, size_t, void *)) \
    X(ReadCallback, curl_read_callback, size_t, (char *, size_t, size_t, void *)) \
    X(OpenSocketCallback, curl_opensocket_callback, CurlSocket, (void *, CurlSocketPurpose, struct curl_sockaddr_start *))

#define CCURL_DECLARE_CALLBACK(name, curl_name, result, parameters) typedef result(*name) parameters;
CCURL_CALLBACKS(CCURL_DECLARE_CALLBACK)
#undef CCURL_DECLARE_CALLBACK

/// The functions CCurl.c looks up, as X(result, name, parameters) (see CDynamicLibrary.h).
#define CCURL_FUNCTIONS(X) \
    X(CurlCode, curl_global_init, (long)) \
    X(void *, curl_easy_init, (void)) \
    X(void, curl_easy_cleanup, (void *)) \
    X(void, curl_easy_reset, (void *)) \
    X(CurlCode, curl_easy_setopt, (void *, CurlOption, ...)) \
    X(CurlCode, curl_easy_perform, (void *)) \
    X(CurlCode, curl_easy_getinfo, (void *, CurlInfo, ...)) \
    X(const char *, curl_easy_strerror, (CurlCode)) \
    X(struct curl_slist *, curl_slist_append, (struct curl_slist *, const char *)) \
    X(void, curl_slist_free_all, (struct curl_slist *)) \
    X(void *, curl_multi_init, (void)) \
    X(CurlMultiCode, curl_multi_setopt, (void *, CurlMultiOption, ...)) \
    X(CurlMultiCode, curl_multi_add_handle, (void *, void *)) \
    X(CurlMultiCode, curl_multi_remove_handle, (void *, void *)) \
    X(CurlMultiCode, curl_multi_perform, (void *, int *)) \
    X(CurlMultiCode, curl_multi_poll, (void *, struct curl_waitfd *, unsigned int, int, int *)) \
    X(CurlMessage *, curl_multi_info_read, (void *, int *)) \
    X(CurlMultiCode, curl_multi_cleanup, (void *)) \
    X(const char *, curl_multi_strerror, (CurlMultiCode))

/// The numbers CCurl.c uses, as X(our name, curl.h's name, value). An option's number also
/// says the type of its argument (long below 10000, then pointer, function, curl_off_t, blob).
#define CCURL_CONSTANTS(X) \
    X(OPT_WRITEDATA, CURLOPT_WRITEDATA, 10001) \
    X(OPT_URL, CURLOPT_URL, 10002) \
    X(OPT_READDATA, CURLOPT_READDATA, 10009) \
    X(OPT_ERRORBUFFER, CURLOPT_ERRORBUFFER, 10010) \
    X(OPT_WRITEFUNCTION, CURLOPT_WRITEFUNCTION, 20011) \
    X(OPT_READFUNCTION, CURLOPT_READFUNCTION, 20012) \
    X(OPT_HTTPHEADER, CURLOPT_HTTPHEADER, 10023) \
    X(OPT_SSLCERT, CURLOPT_SSLCERT, 10025) \
    X(OPT_HEADERDATA, CURLOPT_HEADERDATA, 10029) \
    X(OPT_CUSTOMREQUEST, CURLOPT_CUSTOMREQUEST, 10036) \
    X(OPT_POST, CURLOPT_POST, 47) \
    X(OPT_FOLLOWLOCATION, CURLOPT_FOLLOWLOCATION, 52) \
    X(OPT_SSL_VERIFYPEER, CURLOPT_SSL_VERIFYPEER, 64) \
    X(OPT_CAINFO, CURLOPT_CAINFO, 10065) \
    X(OPT_HEADERFUNCTION, CURLOPT_HEADERFUNCTION, 20079) \
    X(OPT_HTTPGET, CURLOPT_HTTPGET, 80) \
    X(OPT_SSL_VERIFYHOST, CURLOPT_SSL_VERIFYHOST, 81) \
    X(OPT_SSLKEY, CURLOPT_SSLKEY, 10087) \
    X(OPT_CAPATH, CURLOPT_CAPATH, 10097) \
    X(OPT_NOSIGNAL, CURLOPT_NOSIGNAL, 99) \
    X(OPT_MAXFILESIZE_LARGE, CURLOPT_MAXFILESIZE_LARGE, 30117) \
    X(OPT_POSTFIELDSIZE_LARGE, CURLOPT_POSTFIELDSIZE_LARGE, 30120) \
    X(OPT_TIMEOUT_MS, CURLOPT_TIMEOUT_MS, 155) \
    X(OPT_CONNECTTIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS, 156) \
    X(OPT_OPENSOCKETFUNCTION, CURLOPT_OPENSOCKETFUNCTION, 20163) \
    X(OPT_PROTOCOLS, CURLOPT_PROTOCOLS, 181) \
    X(OPT_REDIR_PROTOCOLS, CURLOPT_REDIR_PROTOCOLS, 182) \
    X(OPT_PIPEWAIT, CURLOPT_PIPEWAIT, 237) \
    X(OPT_CONNECT_TO, CURLOPT_CONNECT_TO, 10243) \
    X(OPT_CAINFO_BLOB, CURLOPT_CAINFO_BLOB, 40309) \
    X(MOPT_MAX_HOST_CONNECTIONS, CURLMOPT_MAX_HOST_CONNECTIONS, 7) \
    X(INFO_RESPONSE_CODE, CURLINFO_RESPONSE_CODE, 0x200000 + 2) \
    X(INFO_NUM_CONNECTS, CURLINFO_NUM_CONNECTS, 0x200000 + 26) \
    X(BLOB_COPY, CURL_BLOB_COPY, 1) \
    X(PROTO_HTTP, CURLPROTO_HTTP, 1) \
    X(PROTO_HTTPS, CURLPROTO_HTTPS, 2) \
    X(GLOBAL_DEFAULT, CURL_GLOBAL_DEFAULT, 3) \
    X(ERROR_BUFFER_SIZE, CURL_ERROR_SIZE, 256) \
    X(MSG_DONE, CURLMSG_DONE, 1) \
    X(E_OK, CURLE_OK, 0) \
    X(E_UNSUPPORTED_PROTOCOL, CURLE_UNSUPPORTED_PROTOCOL, 1) \
    X(E_FAILED_INIT, CURLE_FAILED_INIT, 2) \
    X(E_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_PROXY, 5) \
    X(E_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_HOST, 6) \
    X(E_COULDNT_CONNECT, CURLE_COULDNT_CONNECT, 7) \
    X(E_HTTP2, CURLE_HTTP2, 16) \
    X(E_PARTIAL_FILE, CURLE_PARTIAL_FILE, 18) \
    X(E_WRITE_ERROR, CURLE_WRITE_ERROR, 23) \
    X(E_OUT_OF_MEMORY, CURLE_OUT_OF_MEMORY, 27) \
    X(E_OPERATION_TIMEDOUT, CURLE_OPERATION_TIMEDOUT, 28) \
    X(E_SSL_CONNECT_ERROR, CURLE_SSL_CONNECT_ERROR, 35) \
    X(E_GOT_NOTHING, CURLE_GOT_NOTHING, 52) \
    X(E_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_NOTFOUND, 53) \
    X(E_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_SETFAILED, 54) \
    X(E_SEND_ERROR, CURLE_SEND_ERROR, 55) \
    X(E_RECV_ERROR, CURLE_RECV_ERROR, 56) \
    X(E_SSL_CERTPROBLEM, CURLE_SSL_CERTPROBLEM, 58) \
    X(E_SSL_CIPHER, CURLE_SSL_CIPHER, 59) \
    X(E_PEER_FAILED_VERIFICATION, CURLE_PEER_FAILED_VERIFICATION, 60) \
    X(E_FILESIZE_EXCEEDED, CURLE_FILESIZE_EXCEEDED, 63) \
    X(E_SEND_FAIL_REWIND, CURLE_SEND_FAIL_REWIND, 65) \
    X(E_SSL_ENGINE_INITFAILED, CURLE_SSL_ENGINE_INITFAILED, 66) \
    X(E_SSL_CACERT_BADFILE, CURLE_SSL_CACERT_BADFILE, 77) \
    X(E_SSL_SHUTDOWN_FAILED, CURLE_SSL_SHUTDOWN_FAILED, 80) \
    X(E_SSL_CRL_BADFILE, CURLE_SSL_CRL_BADFILE, 82) \
    X(E_SSL_ISSUER_ERROR, CURLE_SSL_ISSUER_ERROR, 83) \
    X(E_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_PINNEDPUBKEYNOTMATCH, 90) \
    X(E_SSL_INVALIDCERTSTATUS, CURLE_SSL_INVALIDCERTSTATUS, 91) \
    X(E_HTTP2_STREAM, CURLE_HTTP2_STREAM, 92) \
    X(E_SSL_CLIENTCERT, CURLE_SSL_CLIENTCERT, 98)

#define CCURL_DECLARE_CONSTANT(name, curl_name, value) name = (value),
enum { CCURL_CONSTANTS(CCURL_DECLARE_CONSTANT) };
#undef CCURL_DECLARE_CONSTANT

#endif
