/* CZK_TEST_LABELS: e2e */
/*
 * `czk check-c1` end to end: a consistent 2KiB C1 (tests/porep/c1_sector.h)
 * written raw and in cuzk's envelope is accepted (exit 0, shape and counts
 * printed), with and without the sector number and miner id; a wrong miner
 * id, a flipped label and a malformed file are refused (exit 1) with the
 * reason; usage errors exit 2 naming the option; --opt=VALUE and options
 * before FILE are taken (getopt_long, as prove and verify); the counts are
 * worded in the singular for one ("1 partition x 2 challenges"). The CLI is
 * $CZK_TEST_CLI (set by ctest).
 */
#include "support.h"

#include "../porep/c1_sector.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[256];

static void write_file(const char *name, const void *p, size_t n, char *path, size_t cap) {
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void expect(const char *args, int code, const char *substr) {
    czk_test_cli_expect(NULL, args, code, substr);
}

static void test_check_c1(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "%s/czk_check_c1_XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(dir));
    static const uint8_t ticket[32] = {3}, seed[32] = {4};
    ts_sector s;
    assert_true(ts_seal(&s, 5, 1000, 42, ticket, seed, 11, NULL, NULL));
    czk_c1 *c1 = ts_c1(&s);
    assert_non_null(c1);
    char *json;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, &len, &err), &err);
    char raw[512], env[512], bad[512], broken[512], args[2048];
    write_file("c1.json", json, len, raw, sizeof raw);
    char *e = malloc(4 * ((len + 2) / 3) + 128);
    int h = sprintf(e, "{\"SectorNum\":42,\"Phase1Out\":\"");
    int b = EVP_EncodeBlock((unsigned char *)e + h, (const unsigned char *)json, (int)len);
    int t = sprintf(e + h + b, "\",\"SectorSize\":2048}");
    write_file("c1.env", e, (size_t)(h + b + t), env, sizeof env);
    free(e);
    /* a flipped label in vanilla proof (0, 1) */
    c1->proofs[1].c_x.rows[1].b[3] ^= 1;
    char *json2;
    size_t len2;
    czk_assert_ok(czk_c1_to_json(c1, &json2, &len2, &err), &err);
    write_file("bad.json", json2, len2, bad, sizeof bad);
    write_file("broken.json", json, len / 2, broken, sizeof broken);

    snprintf(args, sizeof args, "check-c1 %s --sector-num 42 --miner-id 1000", raw);
    expect(args, 0, "1 partition x 2 challenges, 2 layers, TreeD depth 6, TreeR/TreeC 8-0-0");
    expect(args, 0, "replica_id matches miner f01000, sector 42");
    expect(args, 0, "pre-check: 2 vanilla proofs verified");
    expect(args, 0, "raw C1 of StackedDrg2KiBV1_1 (registered proof 5), 2KiB sector");
    snprintf(args, sizeof args, "check-c1 %s --threads 1", raw);
    expect(args, 0, "replica_id NOT checked: it needs --sector-num and --miner-id");
    snprintf(args, sizeof args, "check-c1 %s --miner-id 1000", env);
    expect(args, 0, "envelope: SectorNum 42, SectorSize 2048");
    expect(args, 0, "replica_id matches miner f01000, sector 42");
    snprintf(args, sizeof args, "check-c1 %s", env);
    expect(args, 0, "replica_id NOT checked: it needs --miner-id");

    snprintf(args, sizeof args, "check-c1 %s --sector-num 42 --miner-id 1001", raw);
    expect(args, 1, "refused: replica_id");
    snprintf(args, sizeof args, "check-c1 %s --sector-num 43 --miner-id 1000", env);
    expect(args, 1, "the envelope's SectorNum 42 is not --sector-num 43");
    snprintf(args, sizeof args, "check-c1 %s", bad);
    char want[256];
    snprintf(want, sizeof want,
             "refused: partition 0, challenge 1 (node %llu): c_x.inclusion_proof.leaf is not the "
             "Poseidon hash of c_x.column.rows",
             (unsigned long long)c1->proofs[1].labeling[0].node);
    expect(args, 1, want);
    snprintf(args, sizeof args, "check-c1 %s", broken);
    expect(args, 1, "refused: C1 JSON: invalid JSON at byte");

    /* --opt=VALUE, and options before FILE, as prove and verify take them */
    snprintf(args, sizeof args, "check-c1 --sector-num=42 --miner-id=1000 %s", raw);
    expect(args, 0, "replica_id matches miner f01000, sector 42");
    snprintf(args, sizeof args, "check-c1 --threads=1 %s --miner-id=1001 --sector-num 42", raw);
    expect(args, 1, "refused: replica_id");

    expect("check-c1", 2, "no FILE");
    expect("check-c1 a b", 2, "one FILE only (also 'b')");
    expect("check-c1 x --miner-id", 2, "--miner-id needs a value");
    expect("check-c1 x --miner-id -5", 2, "--miner-id takes an unsigned integer, not '-5'");
    expect("check-c1 x --sector-num=x", 2, "--sector-num takes an unsigned integer, not 'x'");
    expect("check-c1 --frobnicate x", 2, "unknown option --frobnicate");
    expect("check-c1 --frobnicate=1 x", 2, "unknown option --frobnicate");
    expect("check-c1 --help=1", 2, "--help takes no value");
    snprintf(args, sizeof args, "check-c1 %s/none.json", dir);
    expect(args, 2, "cannot open");
    snprintf(args, sizeof args, "check-c1 %s", dir); /* a directory opens but does not read */
    expect(args, 2, "Is a directory");
    expect("check-c1 --help", 0, "usage: czk check-c1 FILE");

    unlink(raw);
    unlink(env);
    unlink(bad);
    unlink(broken);
    rmdir(dir);
    free(json);
    free(json2);
    czk_c1_free(c1);
    ts_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_check_c1)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
