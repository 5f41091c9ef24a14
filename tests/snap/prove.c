/* CZK_TEST_LABELS: e2e */
/* CZK_TEST_TIMEOUT: 1200 */
/* CZK_TEST_FIXTURES_REQUIRED: snap_2kib_keys */
/*
 * A 2KiB SnapDeals update proved through the commands, on the CPU, with the
 * TEST keys of the snap_2kib_keys fixture (tests/snap/keys.c):
 *   - `czk gen-vanilla --snap --out-dir` updates a really sealed CC sector
 *     key with random data and writes update.json, the request;
 *   - `czk prove --kind snap --request` proves it through the engine
 *     (intake pre-check, synthesis, the CPU backend, verification) and
 *     writes 192 bytes;
 *   - the proof checked here, not by czk: decoded and verified by the
 *     pairing equation against the .vk with the public inputs computed from
 *     update.json's commitments (czk_snap_public_inputs: k_and_h_select,
 *     comm_r_old, comm_d_new, comm_r_new), and refused against another
 *     update of the same sector key, another comm_d_new and another
 *     k_and_h_select;
 *   - `czk verify --kind snap`: the proof valid (exit 0); against the other
 *     update, with one byte changed and cut to 191 bytes INVALID (exit 1);
 *   - refusals before any key is read (exit 1): a tampered partition
 *     (one TreeR sibling of challenge 3) named with its partition and
 *     challenge, a comm_r_old of another sector key, h and partition counts
 *     Curio does not prove; a request of another kind (exit 2);
 *   - `czk bench --in-process --kind snap` completes one proof of the
 *     request and prints its per-partition times.
 */
#include "../porep/e2e_util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "czk/groth16.h"
#include "czk/snap.h"
#include "util/json.h"

static struct {
    char dir[700];
    char keys[600];
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

/* The hex string of "key": "<64 hex>" in text, as bytes. */
static void json_hex32(uint8_t out[32], const char *text, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\": \"", key);
    const char *p = strstr(text, k);
    if (!p) fail_msg("no %s in the request", key);
    char h[65];
    memcpy(h, p + strlen(k), 64);
    h[64] = 0;
    czk_test_hex(out, 32, h);
}

static void read_public(czk_snap_public *pub, const char *rel) {
    char *t = czk_test_slurp(path_of(rel), NULL);
    assert_non_null(t);
    memset(pub, 0, sizeof *pub);
    pub->h = czk_snap_shape_for_size(2048)->h_default;
    json_hex32(pub->comm_r_old, t, "comm_r_old");
    json_hex32(pub->comm_d_new, t, "comm_d_new");
    json_hex32(pub->comm_r_new, t, "comm_r_new");
    free(t);
}

static void edit(const char *rel, const char *out_rel, const char *from, const char *to) {
    e2e_edit(g.dir, rel, out_rel, from, to);
}

static int group_setup(void **state) {
    (void)state;
    czk_test_tmpdir(g.dir, sizeof g.dir, "snap-prove");
    e2e_keys_dir(g.keys, sizeof g.keys); /* the fixture's keys, on every command's key path */
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_test_rm_rf(g.dir);
    return 0;
}

static void test_prove_verify(void **state) {
    (void)state;
    const czk_snap_shape *s = czk_snap_shape_for_size(2048);
    char *out = NULL, *err = NULL;
    assert_int_equal(
        czk("gen-vanilla --snap --sector-size 2KiB --miner-id 1000 --sector-num 12 "
            "--ticket 5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a "
            "--random 12 --out-dir u",
            NULL, NULL),
        0);
    /* another update of the same sector key */
    assert_int_equal(
        czk("gen-vanilla --snap --sector-size 2KiB --miner-id 1000 --sector-num 12 "
            "--ticket 5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a "
            "--random 13 --out-dir u2",
            NULL, NULL),
        0);
    assert_int_equal(czk("prove --kind snap --request u/update.json --out u/proof.bin", &out, NULL),
                     0);
    assert_non_null(strstr(out, "2KiB SnapDeals update, registered update proof 0, miner 1000, "
                                "sector 12, 1 partition"));
    assert_non_null(strstr(out, "pre-check: 1 vanilla proof verified"));
    assert_non_null(strstr(out, "circuit snap-2k, 1 partition"));
    assert_non_null(strstr(out, "czk-test-v28-empty-sector-update-8-0-0-2KiB.params"));
    free(out);

    /* the proof, checked here against the update's public inputs */
    size_t plen = 0;
    uint8_t *pb = czk_test_read(path_of("u/proof.bin"), &plen);
    assert_int_equal(plen, CZK_PROOF_BYTES);
    czk_err e;
    char vk_path[1200];
    czk_assert_ok(czk_snap_find_key(vk_path, sizeof vk_path, NULL, g.keys, s, ".vk", &e), &e);
    czk_vk vk;
    czk_assert_ok(czk_vk_read(&vk, vk_path, &e), &e);
    czk_pvk pvk;
    czk_assert_ok(czk_pvk_prepare(&pvk, &vk, &e), &e);
    czk_proof proof;
    czk_assert_ok(czk_proof_decode(&proof, pb, &e), &e);
    czk_snap_public pub, other;
    read_public(&pub, "u/update.json");
    read_public(&other, "u2/update.json");
    assert_memory_equal(pub.comm_r_old, other.comm_r_old, 32); /* the same sector key */
    czk_fr in[4];
    czk_assert_ok(czk_snap_public_inputs(in, s, &pub, &e), &e);
    czk_fr k_h;
    czk_fr_from_u64(&k_h, 1); /* k 0 | h_select 1 << 0 (2KiB: partition_bits 0, h = hs[0]) */
    assert_true(czk_fr_eq(&in[0], &k_h));
    czk_assert_ok(czk_verify(&pvk, &proof, in, 4, &e), &e);
    czk_assert_ok(czk_snap_public_inputs(in, s, &other, &e), &e);
    assert_int_equal(czk_verify(&pvk, &proof, in, 4, &e), CZK_ERR_VERIFY);
    czk_snap_public mixed = pub;
    memcpy(mixed.comm_d_new, other.comm_d_new, 32);
    czk_assert_ok(czk_snap_public_inputs(in, s, &mixed, &e), &e);
    assert_int_equal(czk_verify(&pvk, &proof, in, 4, &e), CZK_ERR_VERIFY);
    czk_assert_ok(czk_snap_public_inputs(in, s, &pub, &e), &e);
    czk_fr_from_u64(&in[0], 2);
    assert_int_equal(czk_verify(&pvk, &proof, in, 4, &e), CZK_ERR_VERIFY);
    czk_pvk_free(&pvk);
    czk_vk_free(&vk);

    size_t blen = 0;
    uint8_t *blob = czk_test_read(path_of("u/partition-0.vproof"), &blen);
    czk_snap_vanilla *v = NULL;
    czk_assert_ok(czk_snap_vanilla_parse(&v, blob, blen, s, 0, &e), &e);

    /* czk verify */
    assert_int_equal(
        czk("verify --kind snap --request u/update.json --proof u/proof.bin", &out, NULL), 0);
    assert_non_null(strstr(out, "valid: 2KiB SnapDeals update proof (registered update proof 0, 1 "
                                "partition)"));
    free(out);
    assert_int_equal(
        czk("verify --kind snap --request u2/update.json --proof u/proof.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    pb[100] ^= 1;
    czk_test_write(path_of("u/bad.bin"), pb, plen);
    assert_int_equal(
        czk("verify --kind snap --request u/update.json --proof u/bad.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "INVALID"));
    free(err);
    czk_test_write(path_of("u/short.bin"), pb, plen - 1);
    assert_int_equal(
        czk("verify --kind snap --request u/update.json --proof u/short.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "INVALID: 191 bytes, a 2KiB SnapDeals proof has 192"));
    free(err);
    free(pb);

    /* refused before any key is read: a tampered partition, named */
    /* the bincode layout (spec post-snap.md §3) of a 2KiB PartitionProof: comm_c, 8 apex
     * leafs, 10 ChallengeProofs of a Single TreeR proof (tag, root, leaf, 2 path elements of
     * 7 hashes and an index), a Single TreeD proof (6 elements of 1 hash) and another TreeR */
    size_t tree_r = 4 + 32 + 32 + 8 + 2 * (8 + 7 * 32 + 8), tree_d = 4 + 32 + 32 + 8 + 6 * 48;
    size_t head = 32 + 8 + 8 * 32 + 8, per = 2 * tree_r + tree_d;
    assert_int_equal(blen, head + 10 * per);
    size_t at = head + 3 * per + tree_r + tree_d + 4 + 32 + 32 + 8 + 8; /* r_new's 1st sibling */
    assert_memory_equal(blob + at, v->proofs[3].r_new.siblings, 32);
    blob[at] ^= 1; /* its low byte: still a canonical Fr */
    struct stat sb;
    assert_int_equal(mkdir(path_of("t"), 0755), 0);
    czk_test_write(path_of("t/partition-0.vproof"), blob, blen);
    edit("u/update.json", "t/update.json", "\"kind\"", "\"kind\"");
    assert_int_equal(czk("prove --kind snap --request t/update.json --out t/proof.bin", NULL, &err),
                     1);
    assert_non_null(strstr(err, "refused at pre-check: SnapDeals partition 0 does not verify: "
                                "challenge 3"));
    assert_non_null(strstr(err, "proof_r_new"));
    assert_int_not_equal(stat(path_of("t/proof.bin"), &sb), 0); /* nothing written */
    free(err);
    czk_snap_vanilla_free(v);
    free(blob);
    /* another sector key's comm_r_old: partition 0 fails through comm_c and root_r_old */
    char from[65], to[65];
    for (int i = 0; i < 32; i++) {
        snprintf(from + 2 * i, 3, "%02x", pub.comm_r_old[i]);
        snprintf(to + 2 * i, 3, "%02x", pub.comm_r_old[i] ^ (i == 0)); /* still below r */
    }
    edit("u/update.json", "u/r_old.json", from, to);
    assert_int_equal(czk("prove --kind snap --request u/r_old.json --out u/p2.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "SnapDeals partition 0 does not verify: Poseidon-2(comm_c, "
                                "root_r_old) is not comm_r_old"));
    free(err);
    edit("u/update.json", "u/h.json", "\"h\": 1", "\"h\": 2");
    assert_int_equal(czk("prove --kind snap --request u/h.json --out u/p3.bin", NULL, &err), 1);
    assert_non_null(
        strstr(err, "h 2: czk proves an update with the size's h_default (1 for 2KiB)"));
    free(err);
    edit("u/update.json", "u/n.json", "\"partitions\": 1", "\"partitions\": 16");
    assert_int_equal(czk("prove --kind snap --request u/n.json --out u/p4.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "partitions 16: a 2KiB update has 1"));
    free(err);
    edit("u/update.json", "u/rp.json", "\"registered_proof\": 0", "\"registered_proof\": 5");
    assert_int_equal(czk("prove --kind snap --request u/rp.json --out u/p5.bin", NULL, &err), 1);
    assert_non_null(strstr(err, "registered update proof 5: known are 0-4"));
    free(err);
    assert_int_equal(
        czk("prove --kind window-post --request u/update.json --out u/p6.bin", NULL, &err), 2);
    assert_non_null(strstr(err, "a snap request, not --kind window-post"));
    free(err);
    assert_int_equal(
        czk("verify --kind winning-post --request u/update.json --proof u/proof.bin", NULL, &err),
        2);
    assert_non_null(strstr(err, "a snap request, not --kind winning-post"));
    free(err);
}

static void test_bench(void **state) {
    (void)state;
    char *out = NULL, *err = NULL;
    assert_int_equal(czk("bench --in-process --kind snap --request u/update.json -c 1 "
                         "--no-progress",
                         &out, NULL),
                     0);
    assert_non_null(strstr(out, "snap (snap-2k) requests: u/update.json (registered update proof "
                                "0, 1 partition)"));
    assert_non_null(strstr(out, "COMPLETED"));
    assert_non_null(strstr(out, "gpu/partition"));
    assert_non_null(strstr(out, "s/proof"));
    free(out);
    assert_int_equal(
        czk("bench --in-process --kind window-post --request u/update.json -c 1", NULL, &err), 2);
    assert_non_null(strstr(err, "a snap request, not --kind window-post"));
    free(err);
    assert_int_equal(czk("bench --in-process --kind snap --c1 u/update.json -c 1", NULL, &err), 2);
    assert_non_null(strstr(err, "--kind snap takes --request FILE... (no --c1)"));
    free(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_verify),
        cmocka_unit_test(test_bench),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
