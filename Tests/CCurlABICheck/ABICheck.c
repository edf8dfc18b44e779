// Compiles the shim's hand-made libcurl ABI (CurlABI.h) beside the real <curl/curl.h> and
// asserts, at compile time, that every prototype, number and layout it declares is the real one.
//
// The hand-made names never collide with curl.h's (CurlCode, not CURLcode), so both headers
// are read as they are. To compare prototypes, the names CurlABI.h gives libcurl's enums and
// structs are then defined as curl.h's, and every entry of its X-macro lists is expanded into
// a __builtin_types_compatible_p assertion: a wrong parameter, result or variadic fails it.
// The enums themselves are checked to have the size of curl.h's, which makes them ABI-equal.
//
// Without the header (libcurl4-openssl-dev not installed) nothing is checked and every count is
// 0, so that `swift build` still works there; the Swift test then skips, or fails in CI.

#include "CCurlABICheck.h"

#if __has_include(<curl/curl.h>)

// The check compares declarations, so curl.h's type-checking macros (GCC only) are not wanted.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stddef.h>

#include "../../CShims/CCurl/CurlABI.h"

// CURLOPT_PROTOCOLS and CURLOPT_REDIR_PROTOCOLS are deprecated (still supported) since 7.85.
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define SAME_SIZE(hand, real) _Static_assert(sizeof(hand) == sizeof(real), "size of " #hand " differs from " #real)
#define SAME_OFFSET(hand, real, hand_field, real_field) \
    _Static_assert(offsetof(hand, hand_field) == offsetof(real, real_field), "offset of " #hand "." #hand_field " differs")
#define SAME_FIELD_SIZE(hand, real, hand_field, real_field) \
    _Static_assert(sizeof(((hand *)0)->hand_field) == sizeof(((real *)0)->real_field), "size of " #hand "." #hand_field " differs")
#define COUNT(...) +1

// The enums, which CurlABI.h spells int.
SAME_SIZE(CurlCode, CURLcode);
SAME_SIZE(CurlOption, CURLoption);
SAME_SIZE(CurlInfo, CURLINFO);
SAME_SIZE(CurlMultiCode, CURLMcode);
SAME_SIZE(CurlMultiOption, CURLMoption);
SAME_SIZE(CurlMessageKind, CURLMSG);
SAME_SIZE(CurlSocketPurpose, curlsocktype);
SAME_SIZE(CurlSocket, curl_socket_t);
// The argument CCurl.c passes for a curl_off_t option (OPT_*_LARGE).
SAME_SIZE(int64_t, curl_off_t);
_Static_assert((curl_off_t)-1 < 0, "curl_off_t is signed, as int64_t is");

// Layouts.
#define CCURL_LAYOUTS(X) \
    X(SAME_SIZE(CurlBlob, struct curl_blob)) \
    X(SAME_OFFSET(CurlBlob, struct curl_blob, data, data)) \
    X(SAME_OFFSET(CurlBlob, struct curl_blob, len, len)) \
    X(SAME_OFFSET(CurlBlob, struct curl_blob, flags, flags)) \
    X(SAME_FIELD_SIZE(CurlBlob, struct curl_blob, len, len)) \
    X(SAME_FIELD_SIZE(CurlBlob, struct curl_blob, flags, flags)) \
    X(SAME_SIZE(CurlMessage, CURLMsg)) \
    X(SAME_OFFSET(CurlMessage, CURLMsg, msg, msg)) \
    X(SAME_OFFSET(CurlMessage, CURLMsg, easy_handle, easy_handle)) \
    X(SAME_OFFSET(CurlMessage, CURLMsg, result, data.result)) \
    X(SAME_FIELD_SIZE(CurlMessage, CURLMsg, msg, msg)) \
    X(SAME_FIELD_SIZE(CurlMessage, CURLMsg, result, data.result)) \
    X(SAME_OFFSET(struct curl_sockaddr_start, struct curl_sockaddr, family, family)) \
    X(SAME_OFFSET(struct curl_sockaddr_start, struct curl_sockaddr, socktype, socktype)) \
    X(SAME_OFFSET(struct curl_sockaddr_start, struct curl_sockaddr, protocol, protocol)) \
    X(SAME_FIELD_SIZE(struct curl_sockaddr_start, struct curl_sockaddr, family, family)) \
    X(SAME_FIELD_SIZE(struct curl_sockaddr_start, struct curl_sockaddr, socktype, socktype)) \
    X(SAME_FIELD_SIZE(struct curl_sockaddr_start, struct curl_sockaddr, protocol, protocol))
#define CHECK_LAYOUT(assertion) assertion;
CCURL_LAYOUTS(CHECK_LAYOUT)
_Static_assert(sizeof(struct curl_sockaddr_start) <= sizeof(struct curl_sockaddr), "curl_sockaddr starts with our three fields");

// Numbers.
#define CHECK_CONSTANT(name, curl_name, value) \
    _Static_assert((long long)(name) == (long long)(curl_name), #name " is not " #curl_name);
CCURL_CONSTANTS(CHECK_CONSTANT)

// From here on, CurlABI.h's names for libcurl's types are curl.h's.
#define CurlCode CURLcode
#define CurlOption CURLoption
#define CurlInfo CURLINFO
#define CurlMultiCode CURLMcode
#define CurlMultiOption CURLMoption
#define CurlMessage CURLMsg
#define CurlSocket curl_socket_t
#define CurlSocketPurpose curlsocktype
#define curl_sockaddr_start curl_sockaddr

// Prototypes and callback types.
#define CHECK_PROTOTYPE(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result(*) parameters), \
                   #name " is not declared as <curl/curl.h> declares it");
CCURL_FUNCTIONS(CHECK_PROTOTYPE)
#define CHECK_CALLBACK(name, curl_name, result, parameters) \
    _Static_assert(__builtin_types_compatible_p(curl_name, result(*) parameters), #name " is not " #curl_name);
CCURL_CALLBACKS(CHECK_CALLBACK)

CCurlABICheckCounts ccurl_abi_checked_declarations(void) {
    CCurlABICheckCounts counts = {
        .prototypes = 0 CCURL_FUNCTIONS(COUNT),
        .callbacks = 0 CCURL_CALLBACKS(COUNT),
        .constants = 0 CCURL_CONSTANTS(COUNT),
        .layouts = 0 CCURL_LAYOUTS(COUNT),
    };
    return counts;
}

#else

CCurlABICheckCounts ccurl_abi_checked_declarations(void) {
    CCurlABICheckCounts none = {0, 0, 0, 0};
    return none;
}

#endif
