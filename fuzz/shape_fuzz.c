/*
 * libFuzzer target for the shape file decoder (czk_shape_decode).
 *
 * Each input is decoded twice: as is (checksums verified, so random bytes
 * stop at the header or a region checksum), and with the checksums skipped
 * (czk_shape_decode_ex), which lets the fuzzer reach every structural and
 * semantic check behind them. Whatever decodes must be fully usable: it is
 * re-encoded (and, when the checksums were verified, must give back the
 * input byte for byte), decoded again with the checksums on, compared, and
 * evaluated against an all-ones witness. Failures must carry a message.
 */
#include "r1cs/r1cs_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_refusal(czk_status st, const czk_err *err) {
    if (st != CZK_ERR_FORMAT && st != CZK_ERR_TRUNCATED && st != CZK_ERR_NOMEM) {
        fprintf(stderr, "unexpected status %s: %s\n", czk_status_name(st), err->msg);
        abort();
    }
    if (err->code != st || err->msg[0] == 0) {
        fprintf(stderr, "refusal %s without a message\n", czk_status_name(st));
        abort();
    }
}

static void exercise(const czk_shape *s, const uint8_t *data, size_t size, bool verified) {
    uint8_t *enc;
    size_t len;
    czk_err err;
    if (czk_shape_encode(s, &enc, &len, &err) != CZK_OK) abort();
    if (verified && (len != size || memcmp(enc, data, size) != 0)) {
        fprintf(stderr, "re-encoding a decoded shape changed its bytes\n");
        abort();
    }
    czk_shape *t;
    if (czk_shape_decode(&t, enc, len, &err) != CZK_OK) {
        fprintf(stderr, "re-encoded shape refused: %s\n", err.msg);
        abort();
    }
    if (!czk_shape_equal(s, t)) abort();
    czk_shape_free(t);
    free(enc);
    if (s->num_constraints <= 4096) {
        czk_witness w = {.num_inputs = s->num_inputs, .num_aux = s->num_aux};
        w.inputs = malloc((s->num_inputs + 1) * sizeof(czk_fr));
        w.aux = malloc(((size_t)s->num_aux + 1) * sizeof(czk_fr));
        czk_fr *abc = malloc(3 * (s->num_constraints + 1) * sizeof(czk_fr));
        if (w.inputs && w.aux && abc) {
            for (uint32_t i = 0; i < s->num_inputs; i++)
                w.inputs[i] = czk_fr_one;
            for (uint32_t i = 0; i < s->num_aux; i++)
                w.aux[i] = czk_fr_one;
            size_t n = (size_t)s->num_constraints;
            if (czk_shape_eval(s, &w, abc, abc + n, abc + 2 * n, NULL, &err) != CZK_OK) abort();
        }
        free(abc);
        czk_witness_free(&w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int pass = 0; pass < 2; pass++) {
        bool verify = pass == 0;
        czk_shape *s = NULL;
        czk_err err;
        czk_err_clear(&err);
        czk_status st = czk_shape_decode_ex(&s, data, size, verify, &err);
        if (st == CZK_OK) {
            exercise(s, data, size, verify);
            czk_shape_free(s);
        } else {
            if (s) abort();
            check_refusal(st, &err);
        }
    }
    return 0;
}
