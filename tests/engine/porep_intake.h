/*
 * PoRep requests for the engine tests: a 2KiB sector sealed here
 * (czk_test_seal: random data of seed 5, miner 1000, sector 7) and cuzk's envelope
 * around its C1 JSON.
 */
#ifndef CZK_TEST_ENGINE_POREP_INTAKE_H
#define CZK_TEST_ENGINE_POREP_INTAKE_H

#include "etest.h"

#include "czk/porep_c1.h"
#include "czk/seal.h"
#include "sector.h"

#include <openssl/evp.h>

static inline czk_c1 *pi_seal_2k(void) {
    czk_test_sector ts = {.registered_proof = 5 /* StackedDrg2KiBV1_1 */,
                          .sector_num = 7,
                          .ticket = 0x11,
                          .seed = 0x22,
                          .data_seed = 5};
    czk_c1 *c1 = NULL;
    czk_err err;
    czk_assert_ok(czk_test_seal(&c1, &ts, NULL, &err), &err);
    return c1;
}

/* {"SectorNum":7,"Phase1Out":"<base64 C1 JSON>","SectorSize":2048}, malloc'ed. */
static inline char *pi_envelope(const czk_c1 *c1, size_t *out_len) {
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    char *e = malloc(4 * ((len + 2) / 3) + 128);
    assert_non_null(e);
    int h = sprintf(e, "{\"SectorNum\":7,\"Phase1Out\":\"");
    int b = EVP_EncodeBlock((unsigned char *)e + h, (const unsigned char *)json, (int)len);
    int t = sprintf(e + h + b, "\",\"SectorSize\":2048}");
    *out_len = (size_t)(h + b + t);
    free(json);
    return e;
}

static inline void pi_request(czk_proof_request *r, const char *env, size_t len) {
    memset(r, 0, sizeof *r);
    r->kind = CZK_KIND_POREP_C2;
    r->vanilla_proof = (const uint8_t *)env;
    r->vanilla_proof_len = len;
    r->miner_id = 1000;
    r->sector_number = 7;
    r->sector_size = 2048;
    r->registered_proof = 5;
}

#endif
