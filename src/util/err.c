/* Error messages: one line, sticky code, optional context prefixes. */
#include "czk/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

czk_status czk_errf(czk_err *err, czk_status code, const char *fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

czk_status czk_err_wrap(czk_err *err, const char *fmt, ...) {
    if (!err || err->code == CZK_OK) return err ? err->code : CZK_OK;
    char old[sizeof err->msg];
    memcpy(old, err->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    size_t used = n < 0 ? 0 : (size_t)n;
    if (used + 3 < sizeof err->msg) { /* messages are cut at the buffer's end */
        memcpy(err->msg + used, ": ", 2);
        size_t room = sizeof err->msg - used - 3, len = strnlen(old, sizeof old);
        if (len > room) len = room;
        memcpy(err->msg + used + 2, old, len);
        err->msg[used + 2 + len] = 0;
    }
    return err->code;
}

void czk_err_clear(czk_err *err) {
    if (err) {
        err->code = CZK_OK;
        err->msg[0] = 0;
    }
}

const char *czk_status_name(czk_status code) {
    switch (code) {
#define N(x)                                                                                       \
    case x:                                                                                        \
        return #x;
        N(CZK_OK)
        N(CZK_ERR_INVALID_ARG)
        N(CZK_ERR_NOMEM)
        N(CZK_ERR_IO)
        N(CZK_ERR_INTERNAL)
        N(CZK_ERR_UNSUPPORTED)
        N(CZK_ERR_CANCELLED)
        N(CZK_ERR_TIMEOUT)
        N(CZK_ERR_FR_RANGE)
        N(CZK_ERR_EC_LENGTH)
        N(CZK_ERR_EC_FLAGS)
        N(CZK_ERR_EC_FP_RANGE)
        N(CZK_ERR_EC_INFINITY)
        N(CZK_ERR_EC_NOT_ON_CURVE)
        N(CZK_ERR_EC_NOT_IN_GROUP)
        N(CZK_ERR_EC_NO_POINT)
        N(CZK_ERR_FORMAT)
        N(CZK_ERR_TRUNCATED)
        N(CZK_ERR_MISMATCH)
        N(CZK_ERR_UNSATISFIED)
        N(CZK_ERR_VERIFY)
        N(CZK_ERR_DEVICE)
#undef N
    }
    return "CZK_ERR_?";
}
