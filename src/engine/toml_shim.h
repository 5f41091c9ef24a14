/*
 * A small C view of a parsed TOML document (src/engine/config_toml.cc wraps
 * toml++, which is C++17). The walk calls back once per table (type TABLE)
 * and once per value that is not a table, with its dotted key and its
 * position in the source; arrays come whole, their elements in items.
 */
#ifndef CZK_ENGINE_TOML_SHIM_H
#define CZK_ENGINE_TOML_SHIM_H

#include "czk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_tv_type {
    CZK_TV_STRING,
    CZK_TV_INT,
    CZK_TV_FLOAT,
    CZK_TV_BOOL,
    CZK_TV_ARRAY,
    CZK_TV_TABLE,
    CZK_TV_OTHER, /* dates and times */
} czk_tv_type;

typedef struct czk_tv {
    czk_tv_type type;
    const char *s;              /* STRING */
    int64_t i;                  /* INT */
    double f;                   /* FLOAT */
    bool b;                     /* BOOL */
    unsigned line, col;         /* where the value starts */
    unsigned kline, kcol;       /* where its key starts (0 for array items) */
    const struct czk_tv *items; /* ARRAY */
    size_t n;
} czk_tv;

/* "string", "integer", ... */
const char *czk_tv_type_name(czk_tv_type t);

/* Returns CZK_OK or the first non-OK return of fn. */
typedef czk_status (*czk_toml_fn)(void *ctx, const char *key, const czk_tv *v, czk_err *err);

/*
 * Parses text and walks it. A syntax error is CZK_ERR_FORMAT
 * "<source>:<line>:<col>: <description>"; CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_toml_walk(const char *text, size_t len, const char *source,
                                       czk_toml_fn fn, void *ctx, czk_err *err);

#ifdef __cplusplus
}
#endif
#endif
