/* A deliberate leak, for `make test`: proves LeakSanitizer is active in this environment (it
 * silently does nothing under ptrace, for instance), so that a clean run of roles-asan means
 * "no leak" rather than "no leak detection". It must exit non-zero with a leak report. */
#include <stddef.h>

#include "forgecore.h"

int main(void)
{
    int i, bad = 0;
    /* Error responses are owned by the caller: these are never freed. Many of them, because a
     * pointer still lying in a register or stack slot at exit counts as reachable. */
    for (i = 0; i < 100; i++) {
        fc_response *leaked = fc_request(NULL, "GET", "/api/v4/version", "{}", NULL, 0);
        bad |= fc_response_status(leaked) != 400;
    }
    return bad ? 2 : 0;
}
