/* CZK_TEST_LABELS: unit */
/*
 * Parameter points decoded on the GPU (src/cuda/decode.cu) against the
 * host reader (blst, src/groth16/params.c):
 *   - host emulation (no GPU, every CUDA build): the device's per-point
 *     code gives the host reader's verdict and affine bytes for valid
 *     points, edge values and every defect class (tests/groth16/encoded.h);
 *   - device (skipped without a GPU): the five vectors of a stamped key
 *     file read encoded, uploaded and decoded on the device, equal the
 *     host-decoded vectors byte for byte; each defect class planted at a
 *     known index of a G1 and of the G2 vector is found at that index (the
 *     lower of two); the backend's load() of a file holding such a point
 *     fails naming section, index and defect as the host reader does,
 *     leaves nothing resident and the host vectors as read;
 *   - proofs (fixed r, s) from keys decoded on the device (resident), on
 *     the host by load() (pinned; CZK_PARAMS_DEVICE_DECODE=0) and on first
 *     use (never loaded) equal the CPU backend's from the keys czk_setup
 *     made, and verify.
 * The key file: a random satisfied circuit (tests/groth16/testkeys.h) of
 * ~2,300 constraints (domain 4,096; no vector a multiple of the kernel's
 * 256-thread blocks), keys from a seeded toxic waste, written by
 * czk_params_write_stamped into a temporary directory.
 */
#include "../groth16/encoded.h"
#include "../groth16/testkeys.h"

#include "czk/cuda.h"

#ifdef CZK_HAVE_CUDA
#include "gpu_fixture.h"

/* ---- host emulation (no GPU) ---- */

static void test_host_emulation(void **state) {
    (void)state;
    czk_rng rng;
    czk_rng_seed(&rng, 3);
    enum { N = 64 };
    static uint8_t g1[N][96], g2[N][192];
    for (int i = 0; i < N; i++) {
        czk_g1_affine a;
        czk_g2_affine b;
        tk_rand_g1(&a, &rng);
        tk_rand_g2(&b, &rng);
        czk_g1_serialize(g1[i], &a);
        czk_g2_serialize(g2[i], &b);
    }
    czk_err err;
    czk_assert_ok(czk_cuda_decode_host_check(1, &g1[0][0], N, &err), &err);
    czk_assert_ok(czk_cuda_decode_host_check(2, &g2[0][0], N, &err), &err);
    /* each defect: refused, as by the host reader */
    for (int d = 0; d < TK_NDEF; d++) {
        uint8_t p1[96], p2[192];
        memcpy(p1, g1[d], 96);
        tk_plant(p1, 96, (tk_defect)d);
        czk_assert_ok(czk_cuda_decode_host_check(1, p1, 1, &err), &err);
        if (!tk_defect_applies((tk_defect)d, 192)) continue;
        memcpy(p2, g2[d], 192);
        tk_plant(p2, 192, (tk_defect)d);
        czk_assert_ok(czk_cuda_decode_host_check(2, p2, 1, &err), &err);
    }
    /* edges: all zero ((0, 0), no flag: off the curve), (0, p − 2) = (0, −2) (on the curve,
     * refused by blst), x = p − 1, y = p − 1 (in range, off the curve) */
    uint8_t e1[4][96], e2[3][192], pm1[48];
    czk_test_hex(pm1, 48, TK_P_HEX);
    pm1[47] -= 1; /* p ends in 0xab */
    memset(e1, 0, sizeof e1);
    memcpy(&e1[1][48], pm1, 48);
    e1[1][95] -= 1;
    memcpy(e1[2], g1[0], 96);
    memcpy(&e1[2][0], pm1, 48);
    memcpy(e1[3], g1[1], 96);
    memcpy(&e1[3][48], pm1, 48);
    czk_assert_ok(czk_cuda_decode_host_check(1, &e1[0][0], 4, &err), &err);
    memset(e2, 0, sizeof e2);
    memcpy(e2[1], g2[0], 192);
    memcpy(&e2[1][0], pm1, 48); /* x.c1 = p − 1 */
    memcpy(e2[2], g2[1], 192);
    memcpy(&e2[2][144], pm1, 48); /* y.c0 = p − 1 */
    czk_assert_ok(czk_cuda_decode_host_check(2, &e2[0][0], 3, &err), &err);
    assert_int_equal(czk_cuda_decode_host_check(3, &g1[0][0], 1, &err), CZK_ERR_INVALID_ARG);
}

/* ---- the key file ---- */

static struct keys {
    bool made;
    char dir[256], path[300], stamps[300], bad[300], bad_stamps[300];
    tk_circuit c;
    czk_shape *shape;
    czk_params *ref; /* from czk_setup */
    uint8_t *bytes;  /* the file */
    size_t len;
    uint64_t off[5]; /* where each vector's length prefix lies in the file */
    czk_witness w;
    czk_fr r, s;
    uint8_t proof[CZK_PROOF_BYTES]; /* the CPU backend's, from ref */
    czk_pvk pvk;
} K;

static void make_keys(void) {
    if (K.made) return;
    czk_err err;
    czk_test_tmpdir(K.dir, sizeof K.dir, "groth16");
    snprintf(K.path, sizeof K.path, "%s/keys.params", K.dir);
    snprintf(K.stamps, sizeof K.stamps, "%s/stamps", K.dir);
    snprintf(K.bad_stamps, sizeof K.bad_stamps, "%s/bad-stamps", K.dir);
    snprintf(K.bad, sizeof K.bad, "%s/bad.params", K.dir);
    K.c = (tk_circuit){.structure_seed = 11, .value_seed = 12, .ni = 4, .nbits = 300, .nmul = 2000};
    K.shape = tk_record(&K.c);
    czk_rng rng;
    czk_rng_seed(&rng, 13);
    czk_toxic tox;
    czk_assert_ok(czk_toxic_random(&tox, &rng, &err), &err);
    czk_assert_ok(czk_setup(&K.ref, K.shape, &tox, pool, &err), &err);
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(K.ref, K.path, K.stamps, &stamped, pool, &err), &err);
    assert_true(stamped);
    K.bytes = czk_test_read(K.path, &K.len);
    const czk_params *p = K.ref;
    K.off[0] = czk_vk_encoded_size(p->vk.ic_len);
    K.off[1] = K.off[0] + 4 + (uint64_t)p->h_len * 96;
    K.off[2] = K.off[1] + 4 + (uint64_t)p->l_len * 96;
    K.off[3] = K.off[2] + 4 + (uint64_t)p->a_len * 96;
    K.off[4] = K.off[3] + 4 + (uint64_t)p->b_g1_len * 96;
    assert_int_equal(K.off[4] + 4 + (uint64_t)p->b_g2_len * 192, K.len);
    const uint32_t n[5] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    for (int k = 0; k < 5; k++)
        assert_true(n[k] % 256 != 0); /* the kernel's last block is partial */
    print_message("keys: h %u, l %u, a %u, b %u points, %zu bytes\n", n[0], n[1], n[2], n[3],
                  K.len);
    tk_witness(&K.c, &K.w);
    czk_assert_ok(czk_fr_random(&K.r, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&K.s, &rng, &err), &err);
    czk_backend cpu;
    czk_assert_ok(czk_backend_cpu(&cpu, pool, &err), &err);
    czk_proof pr;
    czk_assert_ok(czk_prove(&cpu, K.ref, K.shape, &K.w, 1, &K.r, &K.s, &pr, NULL, &err), &err);
    czk_proof_encode(K.proof, &pr);
    czk_backend_release(&cpu);
    czk_assert_ok(czk_pvk_prepare(&K.pvk, &K.ref->vk, &err), &err);
    K.made = true;
}

static int group_setup(void **state) {
    int rc = setup(state);
    if (rc || !ctx) return rc;
    make_keys();
    return 0;
}

static int group_teardown(void **state) {
    if (K.made) {
        czk_test_rm_rf(K.dir);
        czk_params_free(K.ref);
        czk_shape_free(K.shape);
        czk_witness_free(&K.w);
        czk_pvk_free(&K.pvk);
        tk_circuit_free(&K.c);
        free(K.bytes);
    }
    return teardown(state);
}

/* Reads path encoded (K's stamps; K.bad's own, so that its eight damaged versions, whose
 * content key is the good file's — same size, same first 64 KiB — do not push the good file's
 * digest out of the stamp's CZK_G16_STAMP_DIGESTS); it must come back encoded. */
static czk_params *read_encoded(const char *path) {
    const char *stamps = strcmp(path, K.bad) ? K.stamps : K.bad_stamps;
    czk_params_read_opts o = {.flags = CZK_PARAMS_ENCODED, .stamp_dir = stamps, .pool = pool};
    czk_params *p;
    czk_err err;
    czk_assert_ok(czk_params_read(&p, path, &o, NULL, &err), &err);
    assert_true(p->encoded);
    return p;
}

/* Bytes b written to K.bad with a stamp for them, as if an earlier check had passed them. */
static void write_stamped_bytes(const uint8_t *b, size_t len) {
    czk_test_write(K.bad, b, len);
    uint8_t tree[64];
    czk_err err;
    czk_assert_ok(czk_tree_digest(tree, b, len, NULL, &err), &err);
    assert_true(czk_g16_stamp_file(K.bad, K.bad_stamps, tree));
}

static const char *const VEC[5] = {"h", "l", "a", "b_g1", "b_g2"};

static size_t vec_count(const czk_params *p, int k) {
    const uint32_t n[5] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    return n[k];
}
static const void *vec_of(const czk_params *p, int k) {
    const void *v[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    return v[k];
}

/* Uploads n encoded points of group (1|2), decodes them on the device; *out (malloc'ed, may be
 * NULL) the downloaded result. Returns the index the device refused (UINT64_MAX: none). */
static uint64_t device_decode(const void *enc, size_t n, unsigned group, uint8_t **out) {
    size_t bytes = n * (group == 1 ? 96 : 192);
    void *d = NULL;
    czk_err err;
    czk_assert_ok(czk_cuda_alloc(ctx, &d, bytes ? bytes : 1, &err), &err);
    czk_assert_ok(czk_cuda_upload(ctx, d, enc, bytes, &err), &err);
    uint64_t bad = 0;
    czk_assert_ok(czk_cuda_decode_points(ctx, d, n, group, &bad, &err), &err);
    if (out) {
        *out = malloc(bytes ? bytes : 1);
        assert_non_null(*out);
        czk_assert_ok(czk_cuda_download(ctx, *out, d, bytes, &err), &err);
    }
    czk_cuda_free(ctx, d);
    return bad;
}

/* The first differing point of two vectors of n points of `size` bytes, or n. */
static size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n, size_t size) {
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i * size, b + i * size, size)) return i;
    return n;
}

/* ---- device tests ---- */

/* The five vectors decoded on the device equal the host decoding, byte for byte. */
static void test_device_equals_host(void **state) {
    (void)state;
    NEED_GPU();
    czk_params *p = read_encoded(K.path);
    for (int k = 0; k < 5; k++) {
        size_t n = vec_count(p, k), size = k == 4 ? 192 : 96;
        assert_memory_equal(vec_of(p, k), K.bytes + K.off[k] + 4, n * size); /* as read */
        uint8_t *got;
        uint64_t bad = device_decode(vec_of(p, k), n, k == 4 ? 2 : 1, &got);
        if (bad != UINT64_MAX)
            fail_msg("vector %s: the device refused point %llu", VEC[k], (unsigned long long)bad);
        size_t i = first_diff(got, vec_of(K.ref, k), n, size);
        if (i != n) fail_msg("vector %s: point %zu of %zu differs from the host's", VEC[k], i, n);
        free(got);
    }
    /* no points: nothing to do */
    uint64_t bad = 0;
    czk_err err;
    czk_assert_ok(czk_cuda_decode_points(ctx, NULL, 0, 1, &bad, &err), &err);
    assert_true(bad == UINT64_MAX);
    czk_params_free(p);
}

/* Each defect class at a known index of l (G1) and b_g2 (G2): found there, the lower of two. */
static void test_device_defects(void **state) {
    (void)state;
    NEED_GPU();
    czk_params *p = read_encoded(K.path);
    const int vk[2] = {1, 4};
    for (int v = 0; v < 2; v++) {
        int k = vk[v];
        size_t n = vec_count(p, k), size = k == 4 ? 192 : 96;
        size_t at[3] = {0, n / 2 + 1, n - 1}; /* first, middle, last (the partial block) */
        uint8_t *buf = malloc(n * size);
        assert_non_null(buf);
        for (int d = 0; d < TK_NDEF; d++) {
            if (!tk_defect_applies((tk_defect)d, size)) continue;
            for (int a = 0; a < 3; a++) {
                memcpy(buf, vec_of(p, k), n * size);
                tk_plant(buf + at[a] * size, size, (tk_defect)d);
                uint64_t bad = device_decode(buf, n, k == 4 ? 2 : 1, NULL);
                if (bad != at[a])
                    fail_msg("%s: %s at point %zu: the device says %llu", VEC[k], TK_DEF_NAME[d],
                             at[a], (unsigned long long)bad);
            }
            /* two defects: the lower index */
            memcpy(buf, vec_of(p, k), n * size);
            tk_plant(buf + (n - 3) * size, size, (tk_defect)d);
            tk_plant(buf + 5 * size, size,
                     d == TK_DEF_COMPRESSED ? TK_DEF_OFF_CURVE : TK_DEF_COMPRESSED);
            uint64_t bad = device_decode(buf, n, k == 4 ? 2 : 1, NULL);
            if (bad != 5)
                fail_msg("%s: %s at %zu and another at 5: the device says %llu", VEC[k],
                         TK_DEF_NAME[d], n - 3, (unsigned long long)bad);
        }
        free(buf);
    }
    czk_params_free(p);
}

/*
 * The backend's load() of encoded params holding a defect: the reader's status and message
 * (section, index, defect), nothing loaded, the host vectors still the file's bytes; then the
 * same file decoded on the host gives the same error.
 */
static void test_load_refuses(void **state) {
    (void)state;
    NEED_GPU();
    static const struct {
        int k;
        size_t index;
        tk_defect d;
    } cases[] = {{0, SIZE_MAX, TK_DEF_OFF_CURVE}, {1, 17, TK_DEF_X_RANGE},
                 {2, 0, TK_DEF_INFINITY},         {3, 9, TK_DEF_COMPRESSED},
                 {4, 3, TK_DEF_Y_RANGE},          {4, SIZE_MAX, TK_DEF_OFF_CURVE},
                 {1, 2, TK_DEF_ORDER3},           {4, 0, TK_DEF_SIGN}};
    /* (index SIZE_MAX: the vector's last point) */
    uint8_t *b = malloc(K.len);
    assert_non_null(b);
    czk_err err;
    czk_backend gpu;
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int k = cases[c].k;
        size_t size = k == 4 ? 192 : 96;
        size_t index = cases[c].index == SIZE_MAX ? vec_count(K.ref, k) - 1 : cases[c].index;
        memcpy(b, K.bytes, K.len);
        tk_plant(b + K.off[k] + 4 + index * size, size, cases[c].d);
        write_stamped_bytes(b, K.len);
        czk_params *p = read_encoded(K.bad);
        unsigned drop = 0;
        uint64_t dev = 0;
        czk_status st = gpu.ops->load(gpu.self, p, K.shape, &drop, &dev, &err);
        char where[64];
        snprintf(where, sizeof where, "section %s, point %zu", VEC[k], index);
        czk_status want = tk_defect_status(cases[c].d);
        const char *words = tk_defect_words(cases[c].d, size);
        if (st != want || !strstr(err.msg, where) || !strstr(err.msg, words))
            fail_msg("load with %s at %s: want %s naming \"%s\" and \"%s\", got %s: %s",
                     TK_DEF_NAME[cases[c].d], where, czk_status_name(want), where, words,
                     czk_status_name(st), err.msg);
        assert_int_equal(drop, 0);
        czk_cuda_residency res;
        czk_assert_ok(czk_backend_cuda_residency(&gpu, p, &res, &err), &err);
        assert_false(res.loaded);
        assert_true(p->encoded);
        for (int q = 0; q < 5; q++) /* host vectors untouched */
            assert_memory_equal(vec_of(p, q), b + K.off[q] + 4,
                                vec_count(p, q) * (q == 4 ? 192 : 96));
        /* the host's decoding: the same verdict */
        assert_int_equal(czk_params_decode_vectors(p, pool, &err), want);
        assert_non_null(strstr(err.msg, where));
        czk_params_free(p);
    }
    czk_backend_release(&gpu);
    free(b);
}

/* A proof on backend be with p (loaded first when load): K's CPU proof, and it verifies. */
static void prove_equal(const czk_backend *be, const czk_params *p, const char *what) {
    czk_err err;
    czk_proof pr;
    czk_assert_ok(czk_prove(be, p, K.shape, &K.w, 1, &K.r, &K.s, &pr, NULL, &err), &err);
    uint8_t got[CZK_PROOF_BYTES];
    czk_proof_encode(got, &pr);
    if (memcmp(got, K.proof, CZK_PROOF_BYTES))
        fail_msg("%s: the proof differs from the CPU's", what);
    czk_assert_ok(czk_verify(&K.pvk, &pr, K.c.in, K.c.ni - 1, &err), &err);
}

/*
 * Proofs from encoded keys equal the CPU backend's from czk_setup's keys: decoded on the device
 * (resident; the host vectors stay encoded and droppable, and are dropped), decoded on the host
 * by load() (pinned: a budget of 1 byte; and resident with CZK_PARAMS_DEVICE_DECODE=0), and
 * decoded on first use by a backend that never loaded them.
 */
static void test_proofs(void **state) {
    (void)state;
    NEED_GPU();
    czk_err err;
    unsigned drop;
    uint64_t dev;
    czk_cuda_residency res;
    /* 1. resident, decoded on the device */
    czk_backend gpu;
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    czk_params *p = read_encoded(K.path);
    czk_assert_ok(gpu.ops->load(gpu.self, p, K.shape, &drop, &dev, &err), &err);
    assert_int_equal(drop, CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1 | CZK_SRS_B_G2);
    czk_assert_ok(czk_backend_cuda_residency(&gpu, p, &res, &err), &err);
    assert_true(res.loaded && res.params_resident && !res.pinned);
    assert_true(p->encoded); /* the host vectors are still the file's */
    assert_memory_equal(p->b_g2, K.bytes + K.off[4] + 4, (size_t)p->b_g2_len * 192);
    prove_equal(&gpu, p, "decoded on the device");
    czk_g16_free(p->h), czk_g16_free(p->l), czk_g16_free(p->a), czk_g16_free(p->b_g1);
    czk_g16_free(p->b_g2);
    p->h = p->l = p->a = p->b_g1 = NULL;
    p->b_g2 = NULL;
    prove_equal(&gpu, p, "decoded on the device, host vectors dropped");
    gpu.ops->unload(gpu.self, p);
    czk_params_free(p);
    czk_backend_release(&gpu);
    /* 2. pinned: decoded on the host by load() */
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 1, &err), &err);
    p = read_encoded(K.path);
    czk_assert_ok(gpu.ops->load(gpu.self, p, K.shape, &drop, &dev, &err), &err);
    czk_assert_ok(czk_backend_cuda_residency(&gpu, p, &res, &err), &err);
    assert_true(res.loaded && !res.params_resident && res.pinned);
    assert_int_equal(drop, 0);
    assert_false(p->encoded);
    prove_equal(&gpu, p, "pinned, decoded on the host");
    gpu.ops->unload(gpu.self, p);
    czk_params_free(p);
    czk_backend_release(&gpu);
    /* 3. resident with device decoding switched off */
    setenv("CZK_PARAMS_DEVICE_DECODE", "0", 1);
    assert_false(czk_cuda_params_device_decode());
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    p = read_encoded(K.path);
    czk_assert_ok(gpu.ops->load(gpu.self, p, K.shape, &drop, &dev, &err), &err);
    unsetenv("CZK_PARAMS_DEVICE_DECODE");
    assert_true(czk_cuda_params_device_decode());
    czk_assert_ok(czk_backend_cuda_residency(&gpu, p, &res, &err), &err);
    assert_true(res.loaded && res.params_resident);
    assert_false(p->encoded);
    prove_equal(&gpu, p, "resident, decoded on the host (CZK_PARAMS_DEVICE_DECODE=0)");
    gpu.ops->unload(gpu.self, p);
    czk_params_free(p);
    czk_backend_release(&gpu);
    /* 4. never loaded: streamed, decoded on first use */
    czk_assert_ok(czk_backend_cuda(&gpu, 0, pool, 0, &err), &err);
    p = read_encoded(K.path);
    prove_equal(&gpu, p, "streamed, decoded on first use");
    assert_false(p->encoded);
    czk_params_free(p);
    czk_backend_release(&gpu);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_emulation), cmocka_unit_test(test_device_equals_host),
        cmocka_unit_test(test_device_defects), cmocka_unit_test(test_load_refuses),
        cmocka_unit_test(test_proofs),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

#else /* no CUDA in this build */

static void test_no_cuda(void **state) {
    (void)state;
    czk_err err;
    uint64_t bad = 0;
    assert_false(czk_cuda_params_device_decode());
    assert_int_equal(czk_cuda_decode_points(NULL, NULL, 0, 1, &bad, &err), CZK_ERR_UNSUPPORTED);
    assert_true(bad == UINT64_MAX);
    uint8_t b[96] = {0};
    assert_int_equal(czk_cuda_decode_host_check(1, b, 1, &err), CZK_ERR_UNSUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
