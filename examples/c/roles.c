/*
 * roles.c: a walk through the forgecore C ABI.
 *
 * Opens an instance on a fresh data directory, creates an administrator and a personal access
 * token with fc_admin, creates an instance member role with fc_member_roles_create, then lists
 * the roles twice: through the typed export fc_member_roles_list and through the HTTP door
 * fc_request (GET /api/v4/member_roles). Exits 0 only when every step answers as expected.
 *
 * Usage: roles [DATA_DIR]   (default: a new directory made with mkdtemp under $TMPDIR or /tmp)
 *
 * Ownership, in short (see include/forgecore.h):
 *   - fc_open hands us an fc_ctx that we own until fc_close.
 *   - Every function returning fc_response* gives us a response we own until fc_response_free,
 *     errors included (fc_open returns NULL on success).
 *   - Pointers from fc_response_headers / fc_response_body are borrowed from their response and
 *     die with it: copy anything needed later before freeing the response.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forgecore.h"

/* Prints a response's status and in-memory body under a label. Borrows `response`. */
static void print_response(const char *label, const fc_response *response)
{
    size_t len = 0;
    const uint8_t *body = fc_response_body(response, &len); /* borrowed from `response` */
    printf("%s: %u %.*s\n", label, (unsigned)fc_response_status(response), (int)len,
           body != NULL ? (const char *)body : "");
}

/* Checks a response's status; on a mismatch prints the response and returns 0. */
static int expect_status(const char *label, const fc_response *response, unsigned expected)
{
    unsigned status = fc_response_status(response);
    print_response(label, response);
    if (status != expected) {
        fprintf(stderr, "%s: expected status %u, got %u\n", label, expected, status);
        return 0;
    }
    return 1;
}

/*
 * Reads the whole body with fc_response_read (which works for streamed and in-memory bodies
 * alike) into a new NUL-terminated buffer that the caller frees with free(). NULL on failure.
 * A small chunk size exercises several calls.
 */
static char *read_body(fc_response *response)
{
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    for (;;) {
        uint8_t chunk[16];
        ptrdiff_t n = fc_response_read(response, chunk, sizeof chunk);
        if (n < 0) { /* a failing stream or bad arguments */
            free(out);
            return NULL;
        }
        if (n == 0) /* end of the body */
            break;
        if (len + (size_t)n + 1 > cap) {
            char *grown;
            while (len + (size_t)n + 1 > cap)
                cap *= 2;
            grown = realloc(out, cap);
            if (grown == NULL) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + len, chunk, (size_t)n);
        len += (size_t)n;
    }
    out[len] = '\0';
    return out;
}

/*
 * Extracts the string value of "key" from a flat JSON object such as {"token":"glpat-..."}.
 * Minimal on purpose: enough for token values (no escapes). Returns a malloc'd copy the caller
 * frees, or NULL.
 */
static char *json_string_field(const char *json, const char *key)
{
    char pattern[64];
    const char *start, *end;
    char *value;
    if (snprintf(pattern, sizeof pattern, "\"%s\":\"", key) >= (int)sizeof pattern)
        return NULL;
    start = strstr(json, pattern);
    if (start == NULL)
        return NULL;
    start += strlen(pattern);
    end = strchr(start, '"');
    if (end == NULL)
        return NULL;
    value = malloc((size_t)(end - start) + 1);
    if (value == NULL)
        return NULL;
    memcpy(value, start, (size_t)(end - start));
    value[end - start] = '\0';
    return value;
}

/* Whether the in-memory body of `response` contains `needle`. Borrows `response`. */
static int body_contains(const fc_response *response, const char *needle)
{
    size_t len = 0, n = strlen(needle), i;
    const uint8_t *body = fc_response_body(response, &len);
    if (body == NULL || n > len)
        return 0;
    for (i = 0; i + n <= len; i++)
        if (memcmp(body + i, needle, n) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    char template_dir[4096];
    const char *data_dir;
    char config[4352];
    char auth[512];
    char headers[512];
    char *token_json = NULL; /* malloc'd, ours */
    char *token = NULL;      /* malloc'd, ours */
    fc_ctx *ctx = NULL;      /* ours until fc_close */
    fc_response *response;   /* each one ours until fc_response_free */
    int ok = 0;

    if (fc_abi_version() != FC_ABI_VERSION) {
        fprintf(stderr, "ABI mismatch: library %u, header %u\n", (unsigned)fc_abi_version(),
                (unsigned)FC_ABI_VERSION);
        return 1;
    }

    if (argc > 1) {
        data_dir = argv[1];
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(template_dir, sizeof template_dir, "%s/forgecore-roles-XXXXXX",
                 tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
        data_dir = mkdtemp(template_dir);
        if (data_dir == NULL) {
            perror("mkdtemp");
            return 1;
        }
    }
    /* The path goes into JSON unescaped: refuse characters that would need escaping. */
    if (strpbrk(data_dir, "\"\\") != NULL || strlen(data_dir) > 4096) {
        fprintf(stderr, "unsupported data directory path: %s\n", data_dir);
        return 1;
    }
    snprintf(config, sizeof config, "{\"data_dir\": \"%s\"}", data_dir);

    /* fc_open: NULL and *ctx set on success; otherwise an error response we must free. */
    response = fc_open(config, &ctx);
    if (response != NULL) {
        print_response("fc_open", response);
        fc_response_free(response);
        return 1;
    }
    printf("opened %s\n", data_dir);

    /* 1. An administrator and a personal access token for it. */
    response = fc_admin(ctx, "{\"command\":\"user_add\",\"username\":\"root\",\"admin\":true}");
    ok = expect_status("user_add", response, 201);
    fc_response_free(response);
    if (!ok)
        goto done;

    response = fc_admin(ctx, "{\"command\":\"token_add\",\"username\":\"root\"}");
    ok = fc_response_status(response) == 201;
    /* Read the body through fc_response_read into our own buffer (copied out of the response). */
    token_json = ok ? read_body(response) : NULL;
    if (!ok)
        print_response("token_add", response);
    fc_response_free(response); /* token_json stays valid: it is our copy */
    if (!ok || token_json == NULL || (token = json_string_field(token_json, "token")) == NULL) {
        fprintf(stderr, "token_add failed\n");
        ok = 0;
        goto done;
    }
    printf("token_add: 201 (token of %u characters)\n", (unsigned)strlen(token));

    if (snprintf(auth, sizeof auth, "{\"private_token\": \"%s\"}", token) >= (int)sizeof auth ||
        snprintf(headers, sizeof headers, "{\"PRIVATE-TOKEN\": \"%s\"}", token) >= (int)sizeof headers) {
        fprintf(stderr, "token too long\n");
        ok = 0;
        goto done;
    }

    /* 2. An instance member role through the typed export. */
    response = fc_member_roles_create(
        ctx, auth, "{\"name\":\"Code reader\",\"base_access_level\":10,\"read_code\":true}");
    ok = expect_status("fc_member_roles_create", response, 201);
    fc_response_free(response);
    if (!ok)
        goto done;

    /* 3. The instance's roles through the typed export... */
    response = fc_member_roles_list(ctx, auth, "{}");
    ok = expect_status("fc_member_roles_list", response, 200) && body_contains(response, "\"Code reader\"");
    fc_response_free(response);
    if (!ok) {
        fprintf(stderr, "fc_member_roles_list: \"Code reader\" missing\n");
        goto done;
    }

    /* ...and through the HTTP door, with a NULL body of length 0. */
    response = fc_request(ctx, "GET", "/api/v4/member_roles", headers, NULL, 0);
    ok = expect_status("GET /api/v4/member_roles", response, 200) &&
         body_contains(response, "\"Code reader\"");
    if (ok) {
        const char *response_headers = fc_response_headers(response); /* borrowed */
        printf("headers: %s\n", response_headers != NULL ? response_headers : "(null)");
    }
    fc_response_free(response);
    if (!ok) {
        fprintf(stderr, "GET /api/v4/member_roles: \"Code reader\" missing\n");
        goto done;
    }

    printf("OK\n");

done:
    free(token);
    free(token_json);
    fc_close(ctx); /* NULL-safe; no call is in flight */
    return ok ? 0 : 1;
}
