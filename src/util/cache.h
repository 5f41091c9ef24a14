/*
 * czk's cache directory (include-private): where the shape cache
 * (shapes/), the key stamps (stamps/) and the test keys (test-keys/) live.
 * The one place that reads CZK_CACHE_DIR: $CZK_CACHE_DIR if set and not
 * empty, else $HOME/.cache/czk. Commands resolve it once when they start,
 * the engine once when it is created (srs.shape_cache, default
 * <cache>/shapes).
 */
#ifndef CZK_UTIL_CACHE_H
#define CZK_UTIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The cache directory with "/sub" appended (sub NULL: the directory itself) into out; false if
 * neither CZK_CACHE_DIR nor HOME is set or the path does not fit cap bytes. */
bool czk_cache_dir(char *out, size_t cap, const char *sub);

#endif
