/* Compiled by `make header-check` as C99 and as C++11, warnings as errors: the generated
 * header must stand alone (its own includes) and be valid, warning-free C and C++. */
#include "forgecore.h"

/* Use every declaration so that a missing or misspelled one fails to compile. */
typedef uint32_t (*abi_version_fn)(void);
typedef fc_response *(*open_fn)(const char *, fc_ctx **);
typedef void (*close_fn)(fc_ctx *);
typedef fc_response *(*request_fn)(const fc_ctx *, const char *, const char *, const char *,
                                   const uint8_t *, size_t);
typedef fc_response *(*typed_fn)(const fc_ctx *, const char *, const char *);
typedef fc_response *(*admin_fn)(const fc_ctx *, const char *);
typedef uint16_t (*status_fn)(const fc_response *);
typedef const char *(*headers_fn)(const fc_response *);
typedef int32_t (*streamed_fn)(const fc_response *);
typedef const uint8_t *(*body_fn)(const fc_response *, size_t *);
typedef ptrdiff_t (*read_fn)(fc_response *, uint8_t *, size_t);
typedef void (*free_fn)(fc_response *);

int header_check_abi(void);

int header_check_abi(void)
{
    abi_version_fn abi = fc_abi_version;
    open_fn open = fc_open;
    close_fn close = fc_close;
    request_fn request = fc_request;
    typed_fn typed[4] = {fc_member_roles_list, fc_member_roles_create, fc_member_roles_update,
                         fc_member_roles_delete};
    admin_fn admin = fc_admin;
    status_fn status = fc_response_status;
    headers_fn headers = fc_response_headers;
    streamed_fn streamed = fc_response_streamed;
    body_fn body = fc_response_body;
    read_fn read = fc_response_read;
    free_fn release = fc_response_free;
    int present = abi != 0 && open != 0 && close != 0 && request != 0 && typed[0] != 0 &&
                  typed[1] != 0 && typed[2] != 0 && typed[3] != 0 && admin != 0 && status != 0 &&
                  headers != 0 && streamed != 0 && body != 0 && read != 0 && release != 0;
    return present ? FC_ABI_VERSION : 0;
}
