/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/* CZK_TEST_FIXTURES_REQUIRED: porep_2kib_keys */
/*
 * PoRep C2 end to end on the CPU, through the czk command, with the 2KiB
 * test keys of the porep.e2e_keys fixture:
 *   - `czk gen-vanilla` seals a 2KiB sector (miner f01000, sector 1, random
 *     data) into a C1; `czk prove` proves it (pre-check with replica_id,
 *     test keys found in the key directory and read through their stamp)
 *     and writes 192 bytes; `czk verify` accepts them, with replica_id
 *     recomputed and without, and from a cuzk envelope of the C1;
 *   - the same proof is refused (exit 1) for a C1 with another comm_r, another
 *     seed, for another miner, and when a byte of it is changed or it is cut
 *     short; a missing vk is a usage error (exit 2);
 *   - a C1 with one Merkle sibling flipped is refused at pre-check (exit 1),
 *     naming the partition, the challenge and the proof; a C1 proved for
 *     another miner id is refused (replica_id).
 */
#include "czk/cuda.h"
#include "e2e_util.h"

static struct {
    char dir[700], keys[600];
    bool proved;
} g;

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g.dir, sizeof g.dir, "e2e");
    e2e_keys_dir(g.keys, sizeof g.keys);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_test_rm_rf(g.dir);
    return 0;
}

static int czk(const char *fmt_args, char **out, char **err) {
    return e2e_czk(g.dir, fmt_args, out, err);
}

static void test_prove_verify(void **state) {
    (void)state;
    char args[1500], *out = NULL;
    assert_int_equal(czk("gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 1 --random 9 "
                         "--out c1.json",
                         NULL, NULL),
                     0);
    snprintf(args, sizeof args,
             "prove --c1 c1.json --param-cache '%s' --sector-num 1 --miner-id 1000 --out proof.bin",
             g.keys);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "replica_id matches miner f01000, sector 1"));
    assert_non_null(strstr(out, "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.params"));
    assert_non_null(strstr(out, "czk TEST keys"));
    assert_non_null(strstr(out, "subgroup membership: stamp")); /* setup stamped them */
    assert_non_null(strstr(out, "MSM b_g2 (G2)"));
    assert_non_null(strstr(out, "peak RSS"));
    free(out);
    char path[800];
    snprintf(path, sizeof path, "%s/proof.bin", g.dir);
    size_t n = 0;
    free(czk_test_slurp(path, &n));
    assert_int_equal(n, 192);
    g.proved = true;

    snprintf(
        args, sizeof args,
        "verify --c1 c1.json --proof proof.bin --param-cache '%s' --sector-num 1 --miner-id 1000",
        g.keys);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.vk"));
    assert_non_null(strstr(out, "valid: 1 partition proof"));
    free(out);
    /* without the ids: the C1's replica_id */
    snprintf(args, sizeof args, "verify --c1 c1.json --proof proof.bin --vk '%s/%s'", g.keys,
             "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.vk");
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "NOT recomputed"));
    free(out);

    /* --backend cuda: proves on a GPU (and the proof verifies), or says why it cannot */
    char *err = NULL;
    snprintf(args, sizeof args,
             "prove --c1 c1.json --param-cache '%s' --sector-num 1 --miner-id 1000 --backend cuda "
             "--out proof-gpu.bin",
             g.keys);
    if (czk_cuda_device_count() > 0) {
        assert_int_equal(czk(args, &out, NULL), 0);
        assert_non_null(strstr(out, "backend: cuda, device 0"));
        free(out);
        snprintf(args, sizeof args,
                 "verify --c1 c1.json --proof proof-gpu.bin --param-cache '%s' --sector-num 1 "
                 "--miner-id 1000",
                 g.keys);
        assert_int_equal(czk(args, &out, NULL), 0);
        assert_non_null(strstr(out, "valid: 1 partition proof"));
        free(out);
    } else {
        assert_int_equal(czk(args, NULL, &err), 2);
        assert_non_null(strstr(err, "--backend cuda: "));
        free(err);
        snprintf(path, sizeof path, "%s/proof-gpu.bin", g.dir);
        assert_int_not_equal(access(path, F_OK), 0); /* nothing written */
    }
    assert_int_equal(czk("prove --c1 c1.json --out x.bin --backend gpu", NULL, &err), 2);
    assert_non_null(strstr(err, "--backend takes auto, cpu or cuda, not 'gpu'"));
    free(err);
}

static void b64(char *out, const uint8_t *in, size_t n) {
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        out[o++] = T[v >> 18];
        out[o++] = T[(v >> 12) & 63];
        out[o++] = i + 1 < n ? T[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? T[v & 63] : '=';
    }
    out[o] = 0;
}

/* cuzk's envelope (cuzk-engine.md §2) carries the sector number. */
static void test_verify_envelope(void **state) {
    (void)state;
    if (!g.proved) fail_msg("no proof (test_prove_verify failed)");
    char path[800], args[1500], *out = NULL;
    snprintf(path, sizeof path, "%s/c1.json", g.dir);
    size_t n = 0;
    char *c1 = czk_test_slurp(path, &n);
    char *enc = malloc(4 * (n / 3 + 1) + 1), *env = malloc(4 * (n / 3 + 1) + 200);
    assert_true(c1 && enc && env);
    b64(enc, (const uint8_t *)c1, n);
    int m = sprintf(env, "{\"SectorNum\":1,\"Phase1Out\":\"%s\",\"SectorSize\":2048}", enc);
    snprintf(path, sizeof path, "%s/env.json", g.dir);
    czk_test_write(path, env, (size_t)m);
    free(c1);
    free(enc);
    free(env);
    snprintf(args, sizeof args,
             "verify --c1 env.json --proof proof.bin --param-cache '%s' --miner-id 1000", g.keys);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "recomputed for miner f01000, sector 1"));
    free(out);
    snprintf(args, sizeof args,
             "verify --c1 env.json --proof proof.bin --param-cache '%s' --miner-id 1000 "
             "--sector-num 2",
             g.keys);
    assert_int_equal(czk(args, NULL, NULL), 2); /* disagrees with the envelope */
}

/* Writes c1.json with one change as name; returns the verify exit status of proof.bin. */
static int verify_changed(const char *name, void (*change)(czk_c1 *), char **err) {
    char path[800], args[1500];
    snprintf(path, sizeof path, "%s/c1.json", g.dir);
    czk_c1 *c1 = e2e_c1_read(path);
    change(c1);
    snprintf(path, sizeof path, "%s/%s", g.dir, name);
    e2e_c1_write(c1, path);
    czk_c1_free(c1);
    snprintf(args, sizeof args,
             "verify --c1 %s --proof proof.bin --param-cache '%s' --sector-num 1 --miner-id 1000",
             name, g.keys);
    return czk(args, NULL, err);
}

static void other_comm_r(czk_c1 *c1) {
    c1->comm_r.b[3] ^= 0x10;
}
static void other_seed(czk_c1 *c1) {
    c1->seed.b[0] ^= 1;
}
static void same(czk_c1 *c1) {
    (void)c1;
}

static void test_verify_refusals(void **state) {
    (void)state;
    if (!g.proved) fail_msg("no proof (test_prove_verify failed)");
    char *err = NULL, args[1500], path[800];
    /* re-serialized unchanged: still valid (the edits below are the only difference) */
    assert_int_equal(verify_changed("same.json", same, NULL), 0);
    assert_int_equal(verify_changed("comm_r.json", other_comm_r, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    assert_int_equal(verify_changed("seed.json", other_seed, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    /* another miner: another replica_id */
    snprintf(
        args, sizeof args,
        "verify --c1 c1.json --proof proof.bin --param-cache '%s' --sector-num 1 --miner-id 1001",
        g.keys);
    assert_int_equal(czk(args, NULL, NULL), 1);
    /* a changed byte (C's x coordinate), a short file */
    snprintf(path, sizeof path, "%s/proof.bin", g.dir);
    size_t n = 0;
    char *p = czk_test_slurp(path, &n);
    p[150] ^= 0x01;
    snprintf(path, sizeof path, "%s/bad.bin", g.dir);
    czk_test_write(path, p, n);
    snprintf(path, sizeof path, "%s/short.bin", g.dir);
    czk_test_write(path, p, 100);
    free(p);
    snprintf(args, sizeof args, "verify --c1 c1.json --proof bad.bin --param-cache '%s'", g.keys);
    assert_int_equal(czk(args, NULL, NULL), 1);
    snprintf(args, sizeof args, "verify --c1 c1.json --proof short.bin --param-cache '%s'", g.keys);
    assert_int_equal(czk(args, NULL, NULL), 1);
    /* no vk anywhere on the key search path: a usage error, not an invalid proof */
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/nonexistent", 1);
    setenv("CZK_CACHE_DIR", "/nonexistent", 1);
    assert_int_equal(
        czk("verify --c1 c1.json --proof proof.bin --param-cache /nonexistent", NULL, &err), 2);
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    unsetenv("CZK_CACHE_DIR");
    assert_non_null(strstr(err, "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.vk"));
    assert_non_null(strstr(err, "/nonexistent (absent)"));
    free(err);
    assert_int_equal(czk("verify --c1 c1.json", NULL, NULL), 2);
}

static void flip_sibling(czk_c1 *c1) {
    c1->proofs[1].comm_d_proof.siblings[2].b[0] ^= 1;
}

/* Refused before any key is read, naming the challenge. */
static void test_prove_refusals(void **state) {
    (void)state;
    char path[800], args[1500], *err = NULL;
    if (!g.proved) /* the refusals need only the C1 */
        assert_int_equal(czk("gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 1 "
                             "--random 9 --out c1.json",
                             NULL, NULL),
                         0);
    snprintf(path, sizeof path, "%s/c1.json", g.dir);
    czk_c1 *c1 = e2e_c1_read(path);
    flip_sibling(c1);
    snprintf(path, sizeof path, "%s/flipped.json", g.dir);
    e2e_c1_write(c1, path);
    czk_c1_free(c1);
    snprintf(args, sizeof args,
             "prove --c1 flipped.json --param-cache /nonexistent --sector-num 1 --miner-id 1000 "
             "--out x.bin");
    assert_int_equal(czk(args, NULL, &err), 1);
    assert_non_null(strstr(err, "refused at pre-check"));
    assert_non_null(strstr(err, "partition 0, challenge 1"));
    assert_non_null(strstr(err, "comm_d_proofs"));
    free(err);
    /* the C1 is miner f01000's: proving it for f01001 is refused */
    assert_int_equal(czk("prove --c1 c1.json --param-cache /nonexistent --sector-num 1 "
                         "--miner-id 1001 --out x.bin",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "replica_id"));
    free(err);
    /* and a C1 sealed for f01001, proved as f01000's */
    assert_int_equal(czk("gen-vanilla --sector-size 2KiB --miner-id 1001 --sector-num 1 "
                         "--out c1_1001.json",
                         NULL, NULL),
                     0);
    assert_int_equal(czk("prove --c1 c1_1001.json --param-cache /nonexistent --sector-num 1 "
                         "--miner-id 1000 --out x.bin",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "replica_id"));
    free(err);
    snprintf(path, sizeof path, "%s/x.bin", g.dir);
    assert_int_not_equal(access(path, F_OK), 0); /* nothing written */
    assert_int_equal(czk("prove --c1 c1.json", NULL, NULL), 2);
    assert_int_equal(czk("prove --c1 missing.json --out x.bin", NULL, NULL), 2);
}

/* Runs `czk args`, expects exit status rc and want in stderr (and, if usage,
   the usage text on stderr too). */
static void expect_err(const char *args, int rc, const char *want, const char *usage) {
    char *err = NULL;
    assert_int_equal(czk(args, NULL, &err), rc);
    if (!strstr(err, want)) fail_msg("stderr lacks '%s'", want);
    if (usage && !strstr(err, usage)) fail_msg("stderr lacks the usage '%s'", usage);
    free(err);
}

/* Option parsing (getopt_long): `--opt VALUE` and `--opt=VALUE`, unknown
   options, missing values; each fails before any file is read. */
static void test_options(void **state) {
    (void)state;
    const char *pu = "usage: czk prove --c1 FILE", *vu = "usage: czk verify --c1 FILE";
    /* the = form reaches the checks of values, and both forms combine */
    expect_err("prove --c1=c1.json --out=x.bin --threads=lots", 2,
               "czk prove: --threads takes a number, not 'lots'", NULL);
    expect_err("prove --c1 c1.json --out x.bin --threads 5000", 2,
               "czk prove: --threads 5000 is too many", NULL);
    expect_err("prove --c1=c1.json --out x.bin --sector-num=-1", 2,
               "--sector-num takes a number, not '-1'", NULL);
    expect_err("prove --c1=c1.json --out x.bin --miner-id= ", 2,
               "--miner-id takes a number, not ''", NULL);
    expect_err("prove --c1=c1.json --out=x.bin --backend=gpu", 2,
               "--backend takes auto, cpu or cuda, not 'gpu'", NULL);
    expect_err("prove --c1 c1.json --out x.bin --device=1024", 2,
               "--device takes a CUDA device number, not '1024'", NULL);
    expect_err("prove --c1=c1.json --out=x.bin --params=a.params --param-cache=dir", 2,
               "--params and --param-cache exclude each other", NULL);
    expect_err("prove --c1=c1.json", 2, "czk prove: --c1 and --out are required", pu);
    expect_err("prove --out=x.bin", 2, "--c1 and --out are required", pu);
    /* missing value, unknown option, a value given to a flag, a stray word */
    expect_err("prove --c1 c1.json --out", 2, "czk prove: --out needs a value", pu);
    expect_err("prove --c1 c1.json --out x.bin --bogus", 2, "czk prove: unknown option --bogus",
               pu);
    expect_err("prove --c1 c1.json --out x.bin --no-shape-cache=yes", 2,
               "czk prove: --no-shape-cache takes no value", pu);
    expect_err("prove --c1 c1.json --out x.bin stray", 2, "czk prove: unexpected argument 'stray'",
               pu);

    expect_err("verify --bogus", 2, "czk verify: unknown option --bogus", vu);
    expect_err("verify --bogus=1 --c1 c1.json", 2, "czk verify: unknown option --bogus\n", vu);
    expect_err("verify --c1 c1.json --proof", 2, "czk verify: --proof needs a value", vu);
    expect_err("verify --c1=c1.json", 2, "czk verify: --c1 and --proof are required", vu);
    expect_err("verify --c1=c1.json --proof=p.bin --sector-num=x", 2,
               "czk verify: --sector-num takes a number, not 'x'", NULL);
    expect_err("verify --c1=c1.json --proof p.bin --miner-id 1e3", 2,
               "--miner-id takes a number, not '1e3'", NULL);
    expect_err("verify --c1=c1.json --proof=p.bin --vk=a.vk --param-cache=dir", 2,
               "--vk and --param-cache exclude each other", NULL);
    /* the value of --c1=FILE is FILE: the file is looked for by that name */
    expect_err("verify --c1=none.json --proof=p.bin", 2,
               "czk verify: cannot open none.json: ", NULL);

    char *out = NULL;
    assert_int_equal(czk("prove --help", &out, NULL), 0);
    assert_non_null(strstr(out, pu));
    free(out);
    assert_int_equal(czk("verify -h", &out, NULL), 0);
    assert_non_null(strstr(out, vu));
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),         cmocka_unit_test(test_prove_verify),
        cmocka_unit_test(test_verify_envelope), cmocka_unit_test(test_verify_refusals),
        cmocka_unit_test(test_prove_refusals),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
