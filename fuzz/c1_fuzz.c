/*
 * libFuzzer target for the C1 intake: czk_c1_parse and
 * czk_c1_parse_envelope on every input, the pre-check on whatever parses.
 *
 * A refusal must be CZK_ERR_FORMAT (or CZK_ERR_NOMEM) with a message and no
 * C1. An accepted C1 must be fully usable: written back (czk_c1_to_json),
 * that text parsed again and written again byte for byte the same (the
 * writer's form is canonical), and pre-checked without crashing, on one
 * thread; the pre-check may refuse with FORMAT, VERIFY or MISMATCH only.
 * Seeds: fuzz/c1_seeds.c (consistent 2KiB C1s, an envelope, fragments).
 */
#include "czk/porep_c1.h"
#include "czk/porep_precheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_refusal(const char *what, czk_status st, const czk_err *err, const czk_c1 *c1) {
    if ((st != CZK_ERR_FORMAT && st != CZK_ERR_NOMEM) || err->code != st || !err->msg[0] || c1) {
        fprintf(stderr, "%s: bad refusal %s \"%s\"\n", what, czk_status_name(st), err->msg);
        abort();
    }
}

static void exercise(const czk_c1 *c1) {
    char *a, *b;
    size_t la, lb;
    czk_err err;
    if (czk_c1_to_json(c1, &a, &la, &err)) {
        fprintf(stderr, "an accepted C1 cannot be written: %s\n", err.msg);
        abort();
    }
    czk_c1 *again;
    if (czk_c1_parse(&again, (const uint8_t *)a, la, &err)) {
        fprintf(stderr, "the writer's text is refused: %s\n", err.msg);
        abort();
    }
    if (czk_c1_to_json(again, &b, &lb, &err) || la != lb || memcmp(a, b, la)) {
        fprintf(stderr, "write(parse(write(x))) != write(x)\n");
        abort();
    }
    free(b);
    czk_c1_free(again);
    free(a);
    czk_precheck_opts o = {.have_ids = true, .sector_num = 42, .miner_id = 1000};
    czk_status st = czk_c1_precheck(c1, &o, NULL, &err);
    if (st != CZK_OK && st != CZK_ERR_VERIFY && st != CZK_ERR_MISMATCH && st != CZK_ERR_FORMAT) {
        fprintf(stderr, "pre-check: unexpected %s \"%s\"\n", czk_status_name(st), err.msg);
        abort();
    }
    if (st != CZK_OK && (err.code != st || !err.msg[0])) abort();
    czk_fr in[3 + 18 * 18];
    if (czk_c1_num_public_inputs(c1) <= sizeof in / sizeof in[0]) {
        st = czk_c1_public_inputs(in, c1, NULL, 0, &err);
        if (st != CZK_OK && st != CZK_ERR_FR_RANGE) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    czk_c1 *c1 = (czk_c1 *)1;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_c1_parse(&c1, data, size, &err);
    if (st == CZK_OK) {
        exercise(c1);
        czk_c1_free(c1);
    } else {
        check_refusal("czk_c1_parse", st, &err, c1);
    }
    uint64_t sn = 0, ss = 0;
    c1 = (czk_c1 *)1;
    czk_err_clear(&err);
    st = czk_c1_parse_envelope(&c1, &sn, &ss, data, size, &err);
    if (st == CZK_OK) {
        exercise(c1);
        czk_c1_free(c1);
    } else {
        check_refusal("czk_c1_parse_envelope", st, &err, c1);
    }
    return 0;
}
