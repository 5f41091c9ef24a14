/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1800 */
/* CZK_TEST_FIXTURES_REQUIRED: porep_2kib_keys */
/*
 * `czk prove` through the engine, `czk verify` without a C1 and `czk bench`
 * on a C1 without ids, end to end on the CPU with the 2KiB test keys of the
 * porep.e2e_keys fixture. The C1 is sealed by `czk gen-vanilla` for miner
 * f01000, sector 7 (not 1, so that an id assumed instead of given shows).
 *   - `czk prove --out /no/such/dir/p.bin` fails at once (exit 2, naming
 *     --out), before the C1 is even parsed: nothing on stdout; an --out that
 *     is a directory likewise;
 *   - `czk prove` without --param-cache finds the keys in
 *     $CZK_CACHE_DIR/test-keys (a cache of the test's own, the fixture's
 *     keys hard-linked there: another path) and reads them through the stamp
 *     of their content; `czk verify` finds the .vk there too;
 *   - `czk prove` proves it (exit 0, 192 bytes); each partition's line holds
 *     the backend's phase times, and they fit inside the engine's own
 *     timings of the same partition (the device lock held ≥ SpMV + NTT +
 *     the four G1 MSMs; the finalizer ≥ b_g2 + assemble, the CPU backend
 *     leaving the G2 MSM to it);
 *   - on a terminal (a pseudo-terminal here) `czk prove` draws a status line
 *     on stderr while it works — the shape and the witness buffers before
 *     "ready", then "proving: N of 1 partition done, S in synthesis, D on
 *     the device, F finalizing" with the partition seen on the device —
 *     cleared ("\r\033[K") before each line it prints; into a file (the
 *     test above) it writes no terminal control sequence at all;
 *   - `czk prove --params DIR/FILE` looks for the keys' Lagrange form in DIR
 *     (the key search path begins there): a damaged czk-lagrange-<vk
 *     digest>.bin placed beside the keys is named on stderr as left out,
 *     and the proof is made and verified without it;
 *   - `czk verify` with --registered-proof, --comm-r, --comm-d, --ticket,
 *     --seed, --miner-id and --sector-num taken from the C1's JSON accepts
 *     the proof, also with --prover-id given as the ID address payload of
 *     f01000 written out here (LEB128(1000) = e8 07, then zeros); another
 *     seed, another comm_r or another sector number is refused (exit 1);
 *     bad hex exits 2 naming the option, as do missing values and --c1
 *     mixed with the C1-less options;
 *   - `czk bench --c1` of the raw C1 without --sector-num/--miner-id
 *     completes its proof and says the C1's replica_id was not checked
 *     (before, sector 1 was assumed and the proof refused at intake); with
 *     ids that do not match (sector 8) it is refused (exit 1).
 */
#include "../porep/e2e_util.h"

#include <pty.h>
#include <time.h>

#define KEYS "czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB"
#define VK KEYS ".vk"

static struct {
    char dir[700], keys[600], cache[800];
    char rp[8], comm_r[65], comm_d[65], ticket[65], seed[65];
    bool proved;
} g;

static void hex(char *out, const uint8_t *b) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g.dir, sizeof g.dir, "cli-pv");
    e2e_keys_dir(g.keys, sizeof g.keys);
    snprintf(g.cache, sizeof g.cache, "%s/cache", g.dir);
    (void)e2e_keys_elsewhere(g.cache, g.keys);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_test_rm_rf(g.dir);
    return 0;
}

static int czk(const char *args, char **out, char **err) {
    return e2e_czk(g.dir, args, out, err);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void make_c1(void) {
    assert_int_equal(czk("gen-vanilla --sector-size 2KiB --miner-id 1000 --sector-num 7 --random 3 "
                         "--out c1.json",
                         NULL, NULL),
                     0);
    char path[800];
    snprintf(path, sizeof path, "%s/c1.json", g.dir);
    czk_c1 *c1 = e2e_c1_read(path);
    snprintf(g.rp, sizeof g.rp, "%u", c1->registered_proof);
    hex(g.comm_r, c1->comm_r.b);
    hex(g.comm_d, c1->comm_d.b);
    hex(g.ticket, c1->ticket.b);
    hex(g.seed, c1->seed.b);
    czk_c1_free(c1);
}

static void test_out_fails_fast(void **state) {
    (void)state;
    make_c1();
    char args[1500], *out = NULL, *err = NULL;
    snprintf(args, sizeof args,
             "prove --c1 c1.json --param-cache '%s' --sector-num 7 --miner-id 1000 "
             "--out /no/such/dir/p.bin",
             g.keys);
    double t0 = now();
    assert_int_equal(czk(args, &out, &err), 2);
    double t = now() - t0;
    assert_non_null(strstr(err, "--out /no/such/dir/p.bin: cannot create a file there"));
    assert_non_null(strstr(err, "No such file or directory"));
    assert_string_equal(out, ""); /* not even the C1 was parsed */
    assert_true(t < 10.0);        /* a proof takes most of a minute here */
    free(out);
    free(err);
    /* a directory is no file name */
    snprintf(args, sizeof args, "prove --c1 c1.json --param-cache '%s' --out .", g.keys);
    assert_int_equal(czk(args, &out, &err), 2);
    assert_non_null(strstr(err, "--out . is a directory"));
    assert_string_equal(out, "");
    free(out);
    free(err);
}

/* The seconds after "<name> " in s (the first match after from). */
static double num_after(const char *s, const char *name) {
    const char *p = strstr(s, name);
    if (!p) fail_msg("no '%s' in the output", name);
    return strtod(p + strlen(name), NULL);
}

/* The key search path of a command: czk's cache at g.cache, no Filecoin parameter cache. */
static void own_cache(bool on) {
    char none[800];
    snprintf(none, sizeof none, "%s/no-params", g.dir);
    if (on) {
        setenv("CZK_CACHE_DIR", g.cache, 1);
        setenv("FIL_PROOFS_PARAMETER_CACHE", none, 1);
    } else {
        unsetenv("CZK_CACHE_DIR");
        unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    }
}

static void test_prove(void **state) {
    (void)state;
    char want[1200], *out = NULL;
    /* no --param-cache: the test keys are found in $CZK_CACHE_DIR/test-keys, and, linked there
     * from the fixture's directory, read through the stamp of their content */
    own_cache(true);
    char *err = NULL;
    int rc = czk("prove --c1 c1.json --sector-num 7 --miner-id 1000 --out proof.bin", &out, &err);
    own_cache(false);
    assert_null(strstr(err, "\033[")); /* stderr is a file: no status line */
    free(err);
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want,
             "keys: %s/test-keys/czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.params (czk "
             "TEST keys",
             g.cache);
    assert_non_null(strstr(out, want));
    assert_non_null(strstr(out, "subgroup membership: stamp of an earlier full check"));
    assert_non_null(strstr(out, "replica_id matches miner f01000, sector 7"));
    assert_non_null(strstr(out, "\nready in "));
    /* the CPU and why (this test runs without --backend, on a machine without a GPU) */
    assert_true(strstr(out, "backend: cpu, ") &&
                (strstr(out, " threads (auto: no CUDA device found (no GPU or no driver))\n") ||
                 strstr(out, " threads (auto: this czk was built without CUDA)\n")));
    assert_non_null(strstr(out, "wrote proof.bin: 192 bytes, 1 partition proof, each verified"));
    assert_null(strstr(out, "\033["));
    const char *line = strstr(out, "\npartition 1/1: ");
    assert_non_null(line);
    double spmv = num_after(line, "SpMV "), ntt = num_after(line, "NTT "),
           h = num_after(line, "MSM h "), l = num_after(line, " l "), a = num_after(line, " a "),
           b1 = num_after(line, " b_g1 "), b2 = num_after(line, " b_g2 "),
           as = num_after(line, "assemble "), dev = num_after(line, "; device "),
           fin = num_after(line, "finalize ");
    assert_true(h > 0 && ntt > 0 && b2 > 0);
    /* the backend's phases inside the engine's lock and finalizer times (ms resolution) */
    assert_true(spmv + ntt + h + l + a + b1 <= dev + 0.002);
    assert_true(b2 + as <= fin + 0.002);
    assert_true(num_after(out, "\n  MSM b_g2 (G2)") == b2);
    free(out);
    char path[800];
    snprintf(path, sizeof path, "%s/proof.bin", g.dir);
    size_t n = 0;
    free(czk_test_slurp(path, &n));
    assert_int_equal(n, 192);
    g.proved = true;
    /* czk verify likewise */
    own_cache(true);
    rc = czk("verify --c1 c1.json --proof proof.bin --sector-num 7 --miner-id 1000", &out, NULL);
    own_cache(false);
    assert_int_equal(rc, 0);
    snprintf(want, sizeof want,
             "vk: %s/test-keys/czk-test-v28-stacked-proof-of-replication-8-0-0-2KiB.vk (czk TEST",
             g.cache);
    assert_non_null(strstr(out, want));
    free(out);
}

/* --params DIR/FILE: the engine looks for the form in DIR; a damaged one is left out, named */
static void test_prove_params_dir(void **state) {
    (void)state;
    char dir[800], from[1400], to[1400], name[CZK_LAGRANGE_NAME_MAX], form[1400], args[2000];
    snprintf(dir, sizeof dir, "%s/pd", g.dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int k = 0; k < 2; k++) {
        const char *ext = k ? ".vk" : ".params";
        snprintf(from, sizeof from, "%s/%s%s", g.keys, KEYS, ext);
        snprintf(to, sizeof to, "%s/%s%s", dir, KEYS, ext);
        assert_int_equal(symlink(from, to), 0);
    }
    czk_vk vk;
    czk_err err;
    czk_assert_ok(czk_vk_read(&vk, to, &err), &err);
    czk_params_lagrange_file_name(name, &vk);
    snprintf(form, sizeof form, "%s/%s", dir, name);
    FILE *f = fopen(form, "w");
    assert_non_null(f);
    fputs("not a Lagrange form\n", f);
    assert_int_equal(fclose(f), 0);
    snprintf(args, sizeof args,
             "prove --c1 c1.json --params pd/%s.params --sector-num 7 --miner-id 1000 --out p2.bin",
             KEYS);
    char *out = NULL, *errs = NULL;
    int rc = czk(args, &out, &errs);
    fprintf(stderr, "%s", errs);
    assert_int_equal(rc, 0);
    char want[1200];
    snprintf(want, sizeof want, "Lagrange form pd/%s left out: ", name);
    assert_non_null(strstr(errs, want));
    assert_non_null(strstr(out, "wrote p2.bin: 192 bytes, 1 partition proof, each verified"));
    free(out);
    free(errs);
    assert_int_equal(unlink(form), 0);
}

/* Runs czk with args in g.dir on a pseudo-terminal (stdin, stdout and stderr); *all = what it
 * wrote there (malloc'ed); returns its exit status. */
static int czk_on_tty(char *const *args, char **all) {
    const char *cli = getenv("CZK_TEST_CLI");
    assert_non_null(cli);
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, NULL);
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(g.dir)) _exit(127);
        char *argv[24] = {(char *)cli};
        for (int i = 0; args[i] && i < 22; i++)
            argv[i + 1] = args[i];
        execv(cli, argv);
        _exit(127);
    }
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (cap - len < 4096) assert_non_null(buf = realloc(buf, cap *= 2));
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k <= 0) break; /* EIO once the child has closed the terminal */
        len += (size_t)k;
    }
    buf[len] = 0;
    close(fd);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    fprintf(stderr, "$ czk prove on a terminal: %zu bytes\n", len);
    *all = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_prove_terminal(void **state) {
    (void)state;
    char *const args[] = {"prove", "--c1",       "c1.json",       "--param-cache",
                          g.keys,  "--miner-id", "1000",          "--sector-num",
                          "7",     "--out",      "proof-tty.bin", NULL};
    char *all = NULL;
    assert_int_equal(czk_on_tty(args, &all), 0);
    assert_non_null(strstr(all, "\rczk prove: keys read; the circuit's shape"));
    assert_non_null(strstr(all, "\rczk prove: witness buffers ..."));
    assert_non_null(strstr(all, "\rczk prove: proving: 0 of 1 partition done, "));
    assert_non_null(strstr(all, ", 1 on the device, "));
    /* the status line is cleared before a line is printed on it */
    assert_non_null(strstr(all, "\r\033[Kpartition 1/1: "));
    assert_non_null(strstr(all, "\r\033[Kkeys: "));
    const char *w = strstr(all, "wrote proof-tty.bin: 192 bytes");
    assert_non_null(w);
    assert_null(strstr(w, "\033[")); /* nothing drawn after the proof */
    free(all);
}

/* verify without a C1; seed/comm_r/sector may replace the C1's values. */
static int verify_public(const char *seed, const char *comm_r, const char *ids, char **out,
                         char **err) {
    char args[2000];
    snprintf(args, sizeof args,
             "verify --registered-proof %s --comm-r %s --comm-d %s --ticket %s --seed %s %s "
             "--proof proof.bin --param-cache '%s'",
             g.rp, comm_r ? comm_r : g.comm_r, g.comm_d, g.ticket, seed ? seed : g.seed, ids,
             g.keys);
    return czk(args, out, err);
}

static void test_verify_without_c1(void **state) {
    (void)state;
    if (!g.proved) fail_msg("no proof (test_prove failed)");
    char *out = NULL, *err = NULL, other[65], args[2000];
    assert_int_equal(verify_public(NULL, NULL, "--miner-id 1000 --sector-num 7", &out, NULL), 0);
    assert_non_null(strstr(out, "replica_id: recomputed for miner f01000, sector 7"));
    assert_non_null(strstr(out, "valid: 1 partition proof of StackedDrg2KiBV1_1"));
    free(out);
    /* f01000's prover id: the ID address payload, LEB128(1000) = e8 07, left-aligned */
    assert_int_equal(
        verify_public(NULL, NULL,
                      "--sector-num 7 --prover-id "
                      "e807000000000000000000000000000000000000000000000000000000000000",
                      &out, NULL),
        0);
    assert_non_null(strstr(out, "valid: 1 partition proof"));
    free(out);
    /* the registered proof by name, the vk given */
    snprintf(args, sizeof args,
             "verify --registered-proof StackedDrg2KiBV1_1 --comm-r %s --comm-d %s --ticket %s "
             "--seed %s --miner-id 1000 --sector-num 7 --proof proof.bin --vk '%s/" VK "'",
             g.comm_r, g.comm_d, g.ticket, g.seed, g.keys);
    assert_int_equal(czk(args, NULL, NULL), 0);

    /* other values: refused */
    snprintf(other, sizeof other, "%s", g.seed);
    other[0] = other[0] == '0' ? '1' : '0';
    assert_int_equal(verify_public(other, NULL, "--miner-id 1000 --sector-num 7", NULL, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    snprintf(other, sizeof other, "%s", g.comm_r);
    other[5] = other[5] == 'a' ? 'b' : 'a';
    assert_int_equal(verify_public(NULL, other, "--miner-id 1000 --sector-num 7", NULL, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    assert_int_equal(verify_public(NULL, NULL, "--miner-id 1000 --sector-num 8", NULL, NULL), 1);

    /* bad hex names the option */
    snprintf(other, sizeof other, "%s", g.comm_d);
    other[10] = 'g';
    snprintf(args, sizeof args,
             "verify --registered-proof %s --comm-r %s --comm-d %s --ticket %s --seed %s "
             "--miner-id 1000 --sector-num 7 --proof proof.bin",
             g.rp, g.comm_r, other, g.ticket, g.seed);
    assert_int_equal(czk(args, NULL, &err), 2);
    assert_non_null(strstr(err, "czk verify: --comm-d takes 32 bytes as 64 hex digits, not '"));
    free(err);
    assert_int_equal(
        verify_public(NULL, NULL, "--ticket 0101 --miner-id 1000 --sector-num 7", NULL, &err), 2);
    assert_non_null(strstr(err, "--ticket takes 32 bytes as 64 hex digits, not '0101'"));
    free(err);
    assert_int_equal(czk("verify --registered-proof 99 --proof proof.bin", NULL, &err), 2);
    assert_non_null(strstr(err, "--registered-proof takes a RegisteredSealProof id 0..19"));
    free(err);
    /* what is missing is named; --c1 gives the values itself */
    snprintf(args, sizeof args, "verify --registered-proof %s --comm-r %s --proof proof.bin", g.rp,
             g.comm_r);
    assert_int_equal(czk(args, NULL, &err), 2);
    assert_non_null(strstr(err, "needs --comm-d --ticket --seed --sector-num --miner-id"));
    free(err);
    snprintf(args, sizeof args, "verify --c1 c1.json --seed %s --proof proof.bin", g.seed);
    assert_int_equal(czk(args, NULL, &err), 2);
    assert_non_null(strstr(err, "are for verifying without a C1"));
    free(err);
    assert_int_equal(
        verify_public(NULL, NULL,
                      "--miner-id 1000 --sector-num 7 --prover-id "
                      "e807000000000000000000000000000000000000000000000000000000000000",
                      NULL, &err),
        2);
    assert_non_null(strstr(err, "--prover-id and --miner-id exclude each other"));
    free(err);
}

static void test_bench_without_ids(void **state) {
    (void)state;
    char args[1500], *out = NULL, *err = NULL;
    snprintf(args, sizeof args,
             "bench --in-process --set gpus.backend=cpu --set srs.param_cache='%s' -c 1 -j 1 "
             "--c1 c1.json --no-progress",
             g.keys);
    assert_int_equal(czk(args, &out, NULL), 0);
    assert_non_null(strstr(out, "replica_id: the C1's own, NOT checked"));
    assert_non_null(strstr(out, " COMPLETED "));
    assert_null(strstr(out, "FAILED"));
    free(out);
    /* with ids, they are checked: sector 8 is not this C1's */
    snprintf(args, sizeof args,
             "bench --in-process --set gpus.backend=cpu --set srs.param_cache='%s' -c 1 -j 1 "
             "--c1 c1.json --miner-id 1000 --sector-num 8 --no-progress",
             g.keys);
    assert_int_equal(czk(args, &out, &err), 1);
    assert_non_null(strstr(out, "replica_id: recomputed and checked for miner f01000: c1.json "
                                "(sector 8)"));
    assert_non_null(strstr(out, "FAILED"));
    free(out);
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_fails_fast),    cmocka_unit_test(test_prove),
        cmocka_unit_test(test_prove_terminal),    cmocka_unit_test(test_verify_without_c1),
        cmocka_unit_test(test_bench_without_ids), cmocka_unit_test(test_prove_params_dir),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
