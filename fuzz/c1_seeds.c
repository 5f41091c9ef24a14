/*
 * Writes a seed corpus for fuzz_c1: consistent 2KiB C1s (V1, V1_1,
 * synthetic) sealed by the test builder, one in cuzk's envelope, and small
 * fragments that reach the parser's early refusals. Usage: c1_seeds <dir>
 */
#include "../tests/porep/c1_sector.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(const char *dir, const char *name, const void *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "c1_seeds: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: c1_seeds <dir>\n");
        return 2;
    }
    static const uint8_t ticket[32] = {7, 1, 2, 3}, seed[32] = {9, 8, 7, 6, 5};
    static const uint32_t ids[] = {0, 5, 10};
    int rc = 0;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ts_sector s;
        if (!ts_seal(&s, ids[i], 1000, 42, ticket, seed, 1 + i, NULL, NULL)) return 2;
        czk_c1 *c1 = ts_c1(&s);
        char *json;
        size_t len;
        czk_err err;
        if (!c1 || czk_c1_to_json(c1, &json, &len, &err)) return 2;
        char name[64];
        snprintf(name, sizeof name, "c1_%u.json", ids[i]);
        rc |= put(argv[1], name, json, len);
        if (ids[i] == 5) {
            char *env = malloc(4 * ((len + 2) / 3) + 128);
            if (!env) return 2;
            int h = sprintf(env, "{\"SectorNum\":42,\"Phase1Out\":\"");
            int b =
                EVP_EncodeBlock((unsigned char *)env + h, (const unsigned char *)json, (int)len);
            int t = sprintf(env + h + b, "\",\"SectorSize\":2048}");
            rc |= put(argv[1], "env_5.json", env, (size_t)(h + b + t));
            free(env);
        }
        free(json);
        czk_c1_free(c1);
        ts_free(&s);
    }
    static const char *const frags[] = {
        "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[]}"
        "}",
        "{\"comm_r\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,"
        "29,30,31,32]}",
        "{\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":{"
        "\"path\":{\"path\":[{\"hashes\":[[0]],\"index\":0}]}}}}}]]}}",
        "{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}",
    };
    for (size_t i = 0; i < sizeof frags / sizeof frags[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "frag_%zu.json", i);
        rc |= put(argv[1], name, frags[i], strlen(frags[i]));
    }
    return rc;
}
