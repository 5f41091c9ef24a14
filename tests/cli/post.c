/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * The PoSt commands end to end on the CPU, 2KiB: `czk setup --kind`,
 * `czk gen-vanilla --post`, `czk prove --kind ... --request` (the engine in
 * process) and `czk verify --kind ... --request`.
 *   - setup: WindowPoSt and WinningPoSt TEST keys under the agreed names
 *     (czk-test-v28-proof-of-spacetime-fallback-<window|winning>-8-0-0-
 *     2KiB); their .vk has the length bellperson's layout gives for the
 *     spec's input counts (23 = 1 + 2·(1 + 10) and 133 = 1 + 66·2 inputs:
 *     864 + 4 + 96·inputs bytes), and the keys of --kind window-post equal
 *     byte for byte those of `czk setup --shape` (the path PoRep and every
 *     other circuit use) on the shape this test records itself, same seed;
 *   - WindowPoSt V1 (registered proof 5) partition 1 of sectors 7 and 9,
 *     WindowPoSt V1_2 (10) of one sector (padded), and WinningPoSt (0) with
 *     its blob embedded as base64: each proves (192 bytes) and verifies;
 *     the V1 proof is refused (exit 1) for partition 0 or another
 *     randomness, the V1_2 one for a changed comm_r; `czk bench --kind
 *     window-post --request` completes two proofs of the V1 request;
 *   - `czk prove --kind --params FILE` proves with the key file named as the
 *     search names it and refuses (exit 2) another name for the same bytes,
 *     --params with --param-cache, and a file that cannot be read;
 *     --no-shape-cache proves and writes no shape into the shape cache;
 *   - one tampered sector blob: prove exits 1 naming that sector (and no
 *     proof file is left); an unmasked randomness is refused by gen-vanilla
 *     (exit 2, saying Curio masks byte 31) and in a request (exit 1); a
 *     request with an unknown key or a comm_r that is not its blob's is
 *     refused naming it; a tampered proof is INVALID (exit 1).
 */
#include "../porep/e2e_util.h"

#include "czk/post.h"

#define RND "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100"
#define WINDOW_KEY "czk-test-v28-proof-of-spacetime-fallback-window-8-0-0-2KiB"
#define WINNING_KEY "czk-test-v28-proof-of-spacetime-fallback-winning-8-0-0-2KiB"

static struct {
    char dir[700];
    bool keys;
} g;

static int czk(const char *args, char **out, char **err) {
    return e2e_czk(g.dir, args, out, err);
}

static char *path_of(const char *rel) {
    static char p[4][1000];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof p[i], "%s/%s", g.dir, rel);
    return p[i];
}

static size_t file_size(const char *rel) {
    struct stat sb;
    assert_int_equal(stat(path_of(rel), &sb), 0);
    return (size_t)sb.st_size;
}

static void edit(const char *rel, const char *out_rel, const char *from, const char *to) {
    e2e_edit(g.dir, rel, out_rel, from, to);
}

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g.dir, sizeof g.dir, "cli-post");
    /* the shape cache and the stamps of this test's keys stay in its directory */
    setenv("CZK_CACHE_DIR", path_of("cache"), 1);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_test_rm_rf(g.dir);
    return 0;
}

static void assert_same_file(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    uint8_t *x = czk_test_read(path_of(a), &na), *y = czk_test_read(path_of(b), &nb);
    assert_int_equal(na, nb);
    assert_true(memcmp(x, y, na) == 0);
    free(x);
    free(y);
}

static void test_setup(void **state) {
    (void)state;
    char *out = NULL;
    assert_int_equal(czk("setup --kind window-post --sector-size 2KiB --out-dir keys --seed 11 "
                         "--backend cpu",
                         &out, NULL),
                     0);
    assert_non_null(strstr(out, "2KiB WindowPoSt circuit (2 sectors x 10 challenges), 21889 "
                                "constraints, 23 inputs")); /* 21,866 + 23 (spec §1.2) */
    free(out);
    assert_int_equal(czk("setup --kind winning-post --registered-proof 0 --out-dir keys --seed 12 "
                         "--backend cpu",
                         &out, NULL),
                     0);
    assert_non_null(strstr(out, "90883 constraints, 133 inputs")); /* 90,750 + 133 */
    free(out);
    /* bellperson's VerifyingKey: α, β, γ, δ (3 G1 + 3 G2 uncompressed), u32 count, IC */
    assert_int_equal(file_size("keys/" WINDOW_KEY ".vk"), 864 + 4 + 96 * 23);
    assert_int_equal(file_size("keys/" WINNING_KEY ".vk"), 864 + 4 + 96 * 133);
    assert_true(file_size("keys/" WINDOW_KEY ".params") > 11000000);
    /* kept on a second run */
    assert_int_equal(
        czk("setup --kind window-post --sector-size 2KiB --out-dir keys --seed 99", &out, NULL), 0);
    assert_non_null(strstr(out, "kept"));
    free(out);
    /* the same keys as `czk setup --shape` of the circuit recorded here */
    czk_post_config cfg;
    czk_post_config_for(&cfg, CZK_POST_WINDOW, czk_post_shape_for_size(2048));
    czk_shape *shape = NULL;
    czk_err err;
    czk_assert_ok(czk_post_record(&shape, &cfg, NULL, NULL, &err), &err);
    czk_assert_ok(czk_shape_write(shape, path_of("window.shape"), &err), &err);
    czk_shape_free(shape);
    assert_int_equal(
        czk("setup --shape window.shape --out byshape --seed 11 --backend cpu", NULL, NULL), 0);
    assert_same_file("byshape.params", "keys/" WINDOW_KEY ".params");
    assert_same_file("byshape.vk", "keys/" WINDOW_KEY ".vk");
    /* the kind must fit the registered proof */
    assert_int_equal(
        czk("setup --kind winning-post --registered-proof 5 --out-dir keys", NULL, &out), 2);
    free(out);
    g.keys = true;
}

static void need_keys(void) {
    if (!g.keys) fail_msg("no keys (test_setup failed)");
}

/* gen-vanilla → prove → verify of one request directory; returns nothing, asserts all. */
static void prove_verify(const char *dir, const char *gen_args, const char *kind) {
    char args[1500], *out = NULL;
    snprintf(args, sizeof args, "gen-vanilla %s --randomness " RND " --out %s", gen_args, dir);
    assert_int_equal(czk(args, NULL, NULL), 0);
    snprintf(args, sizeof args,
             "prove --kind %s --request %s/request.json --param-cache keys --out %s/proof.bin "
             "--backend cpu",
             kind, dir, dir);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "wrote "));
    free(out);
    char rel[200];
    snprintf(rel, sizeof rel, "%s/proof.bin", dir);
    assert_int_equal(file_size(rel), 192);
    snprintf(args, sizeof args,
             "verify --kind %s --request %s/request.json --proof %s/proof.bin --param-cache keys",
             kind, dir, dir);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "valid: 2KiB "));
    free(out);
}

/* verify of dir's proof against request file rel; returns the exit status. */
static int verify_with(const char *dir, const char *kind, const char *req, char **err) {
    char args[1500];
    snprintf(args, sizeof args,
             "verify --kind %s --request %s --proof %s/proof.bin --param-cache keys", kind, req,
             dir);
    return czk(args, NULL, err);
}

static void test_window_v1(void **state) {
    (void)state;
    need_keys();
    prove_verify("w1",
                 "--post window --sector-size 2KiB --registered-proof 5 --sector-num 7,9 "
                 "--partition 1 --random 5",
                 "window-post");
    char *err = NULL;
    /* V1's challenge indices depend on the partition index: partition 0 is refused */
    edit("w1/request.json", "w1/p0.json", "\"partition_index\": 1", "\"partition_index\": 0");
    assert_int_equal(verify_with("w1", "window-post", "w1/p0.json", &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    edit("w1/request.json", "w1/r.json", RND,
         "b3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f100");
    assert_int_equal(verify_with("w1", "window-post", "w1/r.json", NULL), 1);
    /* the kind must be the request's */
    assert_int_equal(verify_with("w1", "winning-post", "w1/request.json", &err), 2);
    assert_non_null(strstr(err, "a window-post request, not --kind winning-post"));
    free(err);
}

/* --params (the key file itself; the engine finds keys by name, so another name is refused) and
 * --no-shape-cache (the shape recorded at load, nothing written to the shape cache). */
static void test_params_and_shape_cache(void **state) {
    (void)state;
    need_keys();
    char *out = NULL, *err = NULL;
    assert_int_equal(
        czk("prove --kind window-post --request w1/request.json --params keys/" WINDOW_KEY
            ".params --out w1/pp.bin --backend cpu",
            &out, NULL),
        0);
    assert_non_null(strstr(out, "keys: keys/" WINDOW_KEY ".params"));
    free(out);
    assert_int_equal(file_size("w1/pp.bin"), 192);
    assert_int_equal(czk("verify --kind window-post --request w1/request.json --proof w1/pp.bin "
                         "--param-cache keys",
                         NULL, NULL),
                     0);
    /* the same bytes under another name: the engine would not find it */
    assert_int_equal(mkdir(path_of("renamed"), 0755), 0);
    assert_int_equal(link(path_of("keys/" WINDOW_KEY ".params"), path_of("renamed/w.params")), 0);
    assert_int_equal(czk("prove --kind window-post --request w1/request.json --params "
                         "renamed/w.params --out w1/pr.bin --backend cpu",
                         NULL, &err),
                     2);
    assert_non_null(strstr(err, "--params renamed/w.params: the engine finds keys by name"));
    assert_non_null(strstr(err, WINDOW_KEY)); /* the name it looked for */
    free(err);
    assert_int_equal(access(path_of("w1/pr.bin"), F_OK), -1);
    assert_int_equal(
        czk("prove --kind window-post --request w1/request.json --params keys/" WINDOW_KEY
            ".params --param-cache keys --out w1/pr.bin",
            NULL, &err),
        2);
    assert_non_null(strstr(err, "--params and --param-cache exclude each other"));
    free(err);
    assert_int_equal(
        czk("prove --kind window-post --request w1/request.json --params keys/none.params "
            "--out w1/pr.bin",
            NULL, &err),
        2);
    assert_non_null(strstr(err, "--params keys/none.params: cannot be read"));
    free(err);
    /* --no-shape-cache under a fresh cache directory: it proves and writes no shape there */
    setenv("CZK_CACHE_DIR", path_of("cache-none"), 1);
    int rc = czk("prove --kind window-post --request w1/request.json --param-cache keys "
                 "--no-shape-cache --out w1/pn.bin --backend cpu",
                 &out, NULL);
    setenv("CZK_CACHE_DIR", path_of("cache"), 1);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "shape: recorded at load (--no-shape-cache)"));
    free(out);
    assert_int_equal(access(path_of("cache-none/shapes/post-v28-window-2KiB.shape"), F_OK), -1);
    assert_int_equal(access(path_of("cache/shapes/post-v28-window-2KiB.shape"), F_OK), 0);
    assert_int_equal(czk("verify --kind window-post --request w1/request.json --proof w1/pn.bin "
                         "--param-cache keys",
                         NULL, NULL),
                     0);
}

static void test_bench(void **state) {
    (void)state;
    need_keys();
    char *out = NULL;
    /* two proofs of the V1 request, in process, keys preloaded by their circuit id */
    assert_int_equal(czk("bench --in-process --kind window-post --request w1/request.json -c 2 "
                         "--set srs.param_cache=keys --set gpus.backend=cpu --no-progress",
                         &out, NULL),
                     0);
    assert_non_null(strstr(out, "window-post (wpost-2k) requests: w1/request.json (registered "
                                "proof 5, partition 1, 2 sectors)"));
    assert_non_null(strstr(out, "2 (completed 2, failed 0)"));
    free(out);
    /* a request of the other kind */
    assert_int_equal(
        czk("bench --in-process --kind winning-post --request w1/request.json -c 1", NULL, &out),
        2);
    assert_non_null(strstr(out, "a window-post request, not --kind winning-post"));
    free(out);
}

static void test_window_v1_2(void **state) {
    (void)state;
    need_keys();
    prove_verify("w2", "--post window --sector-size 2KiB --registered-proof 10 --sector-num 4",
                 "window-post");
    /* V1_2's challenge indices do not depend on the partition index: partition 3 verifies */
    edit("w2/request.json", "w2/p3.json", "\"partition_index\": 0", "\"partition_index\": 3");
    assert_int_equal(verify_with("w2", "window-post", "w2/p3.json", NULL), 0);
    /* another comm_r: refused */
    char *t = czk_test_slurp(path_of("w2/request.json"), NULL);
    char *c = strstr(t, "\"comm_r\": \"");
    assert_non_null(c);
    char from[80], to[80];
    snprintf(from, sizeof from, "%.75s", c);
    snprintf(to, sizeof to, "%s", from);
    to[12] = to[12] == '0' ? '1' : '0';
    free(t);
    edit("w2/request.json", "w2/c.json", from, to);
    assert_int_equal(verify_with("w2", "window-post", "w2/c.json", NULL), 1);
}

static void test_winning(void **state) {
    (void)state;
    need_keys();
    prove_verify("win", "--post winning --sector-size 2KiB --sector-num 3 --embed", "winning-post");
    char *t = czk_test_slurp(path_of("win/request.json"), NULL);
    assert_non_null(strstr(t, "\"vanilla_proofs\": ["));
    assert_null(strstr(t, "vanilla_proof_files"));
    free(t);
    char *err = NULL;
    /* WinningPoSt has one partition */
    edit("win/request.json", "win/p1.json", "\"partition_index\": 0", "\"partition_index\": 1");
    assert_int_equal(verify_with("win", "winning-post", "win/p1.json", &err), 2);
    assert_non_null(strstr(err, "WinningPoSt has one partition"));
    free(err);
}

static void test_tampered_blob(void **state) {
    (void)state;
    need_keys();
    char *err = NULL, *out = NULL;
    assert_int_equal(czk("gen-vanilla --post window --sector-size 2KiB --registered-proof 10 "
                         "--sector-num 7,9 --randomness " RND " --out t",
                         NULL, NULL),
                     0);
    /* sector 9's first proof: u64 id, comm_r, two u64 counts, u32 tag (Single), root, then
       the leaf at 92: one bit of it */
    size_t n = 0;
    uint8_t *b = czk_test_read(path_of("t/sector-9.vproof"), &n);
    assert_true(n > 200);
    b[92] ^= 1;
    czk_test_write(path_of("t/sector-9.vproof"), b, n);
    free(b);
    assert_int_equal(czk("prove --kind window-post --request t/request.json --param-cache keys "
                         "--out t/proof.bin --backend cpu",
                         &out, &err),
                     1);
    assert_non_null(strstr(err, "refused"));
    assert_non_null(strstr(err, "sector 9"));
    assert_null(strstr(err, "sector 7"));
    assert_null(strstr(out, "wrote"));
    struct stat sb;
    assert_int_equal(stat(path_of("t/proof.bin"), &sb), -1);
    free(out);
    free(err);
    /* a comm_r in the request that is not the blob's: refused naming the sector */
    edit("t/request.json", "t/c.json", "\"sector_id\": 7", "\"sector_id\": 8");
    assert_int_equal(czk("prove --kind window-post --request t/c.json --param-cache keys "
                         "--out t/proof.bin --backend cpu",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "t/sector-7.vproof is the vanilla proof of sector 7; sectors[0] is "
                                "sector 8"));
    free(err);
}

static void test_randomness_refused(void **state) {
    (void)state;
    char *err = NULL;
    /* byte 31 unmasked (0xff): not a canonical Fr */
    assert_int_equal(czk("gen-vanilla --post window --sector-size 2KiB --sector-num 7 --randomness "
                         "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f1ff "
                         "--out u",
                         NULL, &err),
                     2);
    assert_non_null(strstr(err, "not a canonical Fr (byte 31 is 0xff; Curio masks it with 0x3f"));
    free(err);
    assert_int_equal(
        czk("gen-vanilla --post window --sector-size 2KiB --sector-num 7 --randomness " RND
            " --out u",
            NULL, NULL),
        0);
    edit("u/request.json", "u/x.json", RND,
         "a3f79982e9add4e72b01e5a6d5b2c976d56518a3eea176e5bd706d1383a6f1ff");
    assert_int_equal(czk("prove --kind window-post --request u/x.json --param-cache keys --out "
                         "u/proof.bin --backend cpu",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "refused: randomness: PoSt randomness is not a canonical Fr"));
    free(err);
    /* other bad requests name what is wrong */
    edit("u/request.json", "u/k.json", "\"miner_id\"", "\"miner\": 1, \"miner_id\"");
    assert_int_equal(
        czk("prove --kind window-post --request u/k.json --out u/proof.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "unknown key 'miner'"));
    free(err);
    edit("u/request.json", "u/rp.json", "\"registered_proof\": 10", "\"registered_proof\": 2");
    assert_int_equal(czk("prove --request u/rp.json --out u/proof.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "registered_proof 2 is a winning-post proof, the kind is "
                                "window-post"));
    free(err);
}

static void test_tampered_proof(void **state) {
    (void)state;
    need_keys();
    size_t n = 0;
    uint8_t *p = czk_test_read(path_of("w1/proof.bin"), &n);
    assert_int_equal(n, 192);
    /* C's last byte: still a valid encoding with high probability, or not: INVALID either way */
    p[191] ^= 0x01;
    czk_test_write(path_of("w1/bad.bin"), p, n);
    czk_test_write(path_of("w1/short.bin"), p, 191);
    free(p);
    char *err = NULL;
    assert_int_equal(czk("verify --kind window-post --request w1/request.json --proof w1/bad.bin "
                         "--param-cache keys",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    assert_int_equal(czk("verify --kind window-post --request w1/request.json --proof "
                         "w1/short.bin --vk keys/" WINDOW_KEY ".vk",
                         NULL, &err),
                     1);
    assert_non_null(strstr(err, "INVALID: 191 bytes"));
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup),
        cmocka_unit_test(test_window_v1),
        cmocka_unit_test(test_params_and_shape_cache),
        cmocka_unit_test(test_bench),
        cmocka_unit_test(test_window_v1_2),
        cmocka_unit_test(test_winning),
        cmocka_unit_test(test_tampered_blob),
        cmocka_unit_test(test_randomness_refused),
        cmocka_unit_test(test_tampered_proof),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
