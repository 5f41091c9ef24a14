#include "util/cache.h"

#include <stdio.h>
#include <stdlib.h>

bool czk_cache_dir(char *out, size_t cap, const char *sub) {
    const char *base = getenv("CZK_CACHE_DIR"), *home = getenv("HOME");
    int n;
    if (base && *base)
        n = snprintf(out, cap, "%s%s%s", base, sub ? "/" : "", sub ? sub : "");
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/czk%s%s", home, sub ? "/" : "", sub ? sub : "");
    else
        return false;
    return n > 0 && (size_t)n < cap;
}
