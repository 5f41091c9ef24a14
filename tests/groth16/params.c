/* CZK_TEST_LABELS: unit */
/*
 * .params / .vk files: bellperson's byte layout, every defect refused with
 * its own status naming section and index, stamps, digests; encoded reads
 * (CZK_PARAMS_ENCODED): the vectors equal the file's bytes, decode to the
 * usual read's points, fall back where no stamp trusts the file, name
 * every planted defect, and are decoded by every consumer of host points.
 */
#include "encoded.h"
#include "testkeys.h"

#include <limits.h>
#include <pthread.h>

#include <sys/stat.h>
#include <sys/time.h>

/* Lengths of the test file and, computed by hand from the layout
 * (porep-circuit.md §5, gpu-prover.md §4), where each block starts. */
#define IC 3
#define H 7
#define L 5
#define A 6
#define B 3
#define FILE_BYTES 3768 /* 864 + 4 + 3·96 + 5·4 + (7+5+6+3)·96 + 3·192 */
enum { OFF_IC = 864, OFF_H = 1156, OFF_L = 1832, OFF_A = 2316, OFF_B1 = 2896, OFF_B2 = 3188 };

static const struct {
    const char *name;
    size_t prefix; /* offset of the length prefix */
    size_t size;   /* point size */
    unsigned count;
} SEC[] = {{"ic", OFF_IC, 96, IC}, {"h", OFF_H, 96, H},     {"l", OFF_L, 96, L},
           {"a", OFF_A, 96, A},    {"b_g1", OFF_B1, 96, B}, {"b_g2", OFF_B2, 192, B}};
#define NSEC (sizeof SEC / sizeof SEC[0])

/* The BLS12-381 generators' coordinates (zcash spec / IETF pairing-friendly-curves draft). */
static const char *G1_X = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83f"
                          "f97a1aeffb3af00adb22c6bb";
static const char *G1_Y = "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744"
                          "a2888ae40caa232946c5e7e1";
static const char *G2_X_C1 = "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334c"
                             "f11213945d57e5ac7d055d042b7e";
static const char *G2_X_C0 = "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac"
                             "0326a805bbefd48056c8c121bdb8";

typedef struct fixture {
    char dir[256], path[300], stamps[300];
    czk_params *params;
    uint8_t *bytes; /* the file as written */
    size_t len;
    czk_pool *pool;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    czk_test_tmpdir(f->dir, sizeof f->dir, "groth16");
    snprintf(f->path, sizeof f->path, "%s/test.params", f->dir);
    snprintf(f->stamps, sizeof f->stamps, "%s/stamps", f->dir);
    f->params = tk_random_params(11, IC, H, L, A, B);
    /* alpha_g1 and beta_g2 are the generators, to check their bytes against the spec's */
    f->params->vk.alpha_g1 = *blst_p1_affine_generator();
    f->params->vk.beta_g2 = *blst_p2_affine_generator();
    czk_err err;
    f->pool = czk_pool_create(3, &err);
    assert_non_null(f->pool);
    czk_assert_ok(czk_params_write(f->params, f->path, f->pool, &err), &err);
    f->bytes = czk_test_read(f->path, &f->len);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    czk_test_rm_rf(f->dir);
    czk_params_free(f->params);
    czk_pool_destroy(f->pool);
    free(f->bytes);
    free(f);
    return 0;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void assert_params_equal(const czk_params *x, const czk_params *y) {
    assert_memory_equal(&x->vk, &y->vk, offsetof(czk_vk, ic));
    assert_int_equal(x->vk.ic_len, y->vk.ic_len);
    assert_memory_equal(x->vk.ic, y->vk.ic, x->vk.ic_len * sizeof(czk_g1_affine));
    assert_int_equal(x->h_len, y->h_len);
    assert_int_equal(x->l_len, y->l_len);
    assert_int_equal(x->a_len, y->a_len);
    assert_int_equal(x->b_g1_len, y->b_g1_len);
    assert_int_equal(x->b_g2_len, y->b_g2_len);
    assert_memory_equal(x->h, y->h, x->h_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->l, y->l, x->l_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->a, y->a, x->a_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->b_g1, y->b_g1, x->b_g1_len * sizeof(czk_g1_affine));
    assert_memory_equal(x->b_g2, y->b_g2, x->b_g2_len * sizeof(czk_g2_affine));
}

/* Decodes bytes from memory and from a file; both must give the same status; returns it. */
static czk_status decode_both(fixture *f, const uint8_t *b, size_t len, unsigned flags,
                              czk_err *err) {
    czk_params_read_opts o = {.flags = flags | CZK_PARAMS_NO_STAMP, .pool = f->pool};
    czk_params *p = NULL;
    czk_err e1;
    czk_status s1 = czk_params_decode(&p, b, len, &o, NULL, &e1);
    assert_true(s1 == CZK_OK ? p != NULL : p == NULL);
    czk_params_free(p);
    char path[400];
    snprintf(path, sizeof path, "%s/bad.params", f->dir);
    czk_test_write(path, b, len);
    czk_status s2 = czk_params_read(&p, path, &o, NULL, err);
    assert_true(s2 == CZK_OK ? p != NULL : p == NULL);
    czk_params_free(p);
    if (s1 != s2)
        fail_msg("memory: %s (%s), file: %s (%s)", czk_status_name(s1), e1.msg, czk_status_name(s2),
                 err->msg);
    return s2;
}

static void expect(fixture *f, const uint8_t *b, size_t len, czk_status want, const char *what) {
    czk_err err;
    czk_status st = decode_both(f, b, len, 0, &err);
    if (st != want || !strstr(err.msg, what))
        fail_msg("want %s naming \"%s\", got %s: %s", czk_status_name(want), what,
                 czk_status_name(st), err.msg);
}

static void test_layout_and_roundtrip(void **state) {
    fixture *f = *state;
    assert_int_equal(f->len, FILE_BYTES);
    assert_int_equal(czk_params_encoded_size(f->params), FILE_BYTES);
    uint8_t want[48];
    czk_test_hex(want, 48, G1_X);
    assert_memory_equal(f->bytes, want, 48); /* alpha_g1.x, no flag bits */
    czk_test_hex(want, 48, G1_Y);
    assert_memory_equal(f->bytes + 48, want, 48);
    czk_test_hex(want, 48, G2_X_C1);
    assert_memory_equal(f->bytes + 192, want, 48); /* beta_g2.x: c1 first */
    czk_test_hex(want, 48, G2_X_C0);
    assert_memory_equal(f->bytes + 240, want, 48);
    for (size_t s = 0; s < NSEC; s++)
        assert_int_equal(be32(f->bytes + SEC[s].prefix), SEC[s].count);

    czk_err err;
    czk_params *p;
    czk_params_read_info info;
    czk_params_read_opts o = {.flags = CZK_PARAMS_NO_STAMP, .pool = f->pool};
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_int_equal(info.bytes, FILE_BYTES);
    assert_false(info.stamp_written);
    assert_params_equal(p, f->params);
    czk_params_free(p);
    czk_assert_ok(czk_params_decode(&p, f->bytes, f->len, NULL, &info, &err), &err);
    assert_params_equal(p, f->params);
    /* the vk block alone */
    czk_vk vk;
    czk_assert_ok(czk_vk_decode(&vk, f->bytes, OFF_H, &err), &err);
    assert_memory_equal(&vk, &f->params->vk, offsetof(czk_vk, ic));
    assert_memory_equal(vk.ic, f->params->vk.ic, IC * sizeof(czk_g1_affine));
    uint8_t *enc = malloc(czk_vk_encoded_size(IC));
    assert_int_equal(czk_vk_encoded_size(IC), OFF_H);
    czk_vk_encode(enc, &vk);
    assert_memory_equal(enc, f->bytes, OFF_H);
    char vkpath[400];
    snprintf(vkpath, sizeof vkpath, "%s/test.vk", f->dir);
    czk_assert_ok(czk_vk_write(&p->vk, vkpath, &err), &err);
    size_t vklen;
    uint8_t *vkfile = czk_test_read(vkpath, &vklen);
    assert_int_equal(vklen, OFF_H);
    assert_memory_equal(vkfile, f->bytes, OFF_H);
    czk_vk vk2;
    czk_assert_ok(czk_vk_read(&vk2, vkpath, &err), &err);
    assert_memory_equal(vk2.ic, vk.ic, IC * sizeof(czk_g1_affine));
    czk_vk_free(&vk2);
    /* a .vk must end after ic */
    assert_int_equal(czk_vk_decode(&vk2, f->bytes, OFF_H + 1, &err), CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "after section ic"));
    assert_null(vk2.ic);
    czk_vk_free(&vk);
    free(vkfile);
    free(enc);
    czk_params_free(p);
}

/* czk_params_drop_host frees just the vectors of the mask that are held, counts their bytes
 * from the lengths, and leaves the rest (and the vk) as read. */
static void test_drop_host(void **state) {
    fixture *f = *state;
    czk_err err;
    czk_params *p;
    czk_params_read_opts o = {.flags = CZK_PARAMS_NO_STAMP, .pool = f->pool};
    czk_assert_ok(czk_params_read(&p, f->path, &o, NULL, &err), &err);
    const czk_params *w = f->params;
    uint64_t freed = 7;
    assert_int_equal(czk_params_drop_host(p, CZK_SRS_H | CZK_SRS_B_G2 | 0x100u, &freed),
                     CZK_SRS_H | CZK_SRS_B_G2);
    assert_int_equal(freed, 7 + (uint64_t)w->h_len * sizeof(czk_g1_affine) +
                                (uint64_t)w->b_g2_len * sizeof(czk_g2_affine));
    assert_null(p->h);
    assert_null(p->b_g2);
    assert_int_equal(p->h_len, w->h_len); /* lengths stay */
    assert_memory_equal(p->l, w->l, w->l_len * sizeof(czk_g1_affine));
    assert_memory_equal(p->a, w->a, w->a_len * sizeof(czk_g1_affine));
    assert_memory_equal(p->b_g1, w->b_g1, w->b_g1_len * sizeof(czk_g1_affine));
    assert_memory_equal(p->vk.ic, w->vk.ic, IC * sizeof(czk_g1_affine));
    /* dropped already: nothing freed, nothing counted */
    assert_int_equal(czk_params_drop_host(p, CZK_SRS_H, &freed), 0);
    assert_int_equal(czk_params_drop_host(p, ~0u, NULL), CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1);
    assert_null(p->l);
    assert_null(p->a);
    assert_null(p->b_g1);
    assert_non_null(p->vk.ic);
    czk_params_free(p);
}

static void test_truncated(void **state) {
    fixture *f = *state;
    char what[64];
    /* inside each vk point */
    static const char *vkname[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                    "gamma_g2", "delta_g1", "delta_g2"};
    static const size_t vkoff[6] = {0, 96, 192, 384, 576, 672};
    for (int k = 0; k < 6; k++) {
        snprintf(what, sizeof what, "section vk, point %d (%s)", k, vkname[k]);
        expect(f, f->bytes, vkoff[k] + 50, CZK_ERR_TRUNCATED, what);
    }
    for (size_t s = 0; s < NSEC; s++) {
        /* inside the length prefix */
        snprintf(what, sizeof what, "section %s: the file ends before its length prefix",
                 SEC[s].name);
        expect(f, f->bytes, SEC[s].prefix + 2, CZK_ERR_TRUNCATED, what);
        /* inside the last point, and inside point 1 */
        for (unsigned i = 1; i < SEC[s].count; i += SEC[s].count - 2) {
            size_t at = SEC[s].prefix + 4 + i * SEC[s].size + 17;
            snprintf(what, sizeof what, "section %s: length prefix %u", SEC[s].name, SEC[s].count);
            expect(f, f->bytes, at, CZK_ERR_TRUNCATED, what);
            snprintf(what, sizeof what, "ends inside point %u ", i);
            expect(f, f->bytes, at, CZK_ERR_TRUNCATED, what);
        }
    }
    expect(f, f->bytes, 0, CZK_ERR_TRUNCATED, "section vk, point 0");
}

static void test_flipped_byte(void **state) {
    fixture *f = *state;
    uint8_t *b = malloc(f->len);
    char what[64];
    /* a byte of a coordinate's low part: off the curve */
    static const char *vkname[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                    "gamma_g2", "delta_g1", "delta_g2"};
    static const size_t vkoff[6] = {0, 96, 192, 384, 576, 672};
    for (int k = 0; k < 6; k++) {
        memcpy(b, f->bytes, f->len);
        b[vkoff[k] + 77] ^= 0x01;
        snprintf(what, sizeof what, "section vk, point %d (%s)", k, vkname[k]);
        expect(f, b, f->len, CZK_ERR_EC_NOT_ON_CURVE, what);
    }
    for (size_t s = 0; s < NSEC; s++) {
        for (unsigned i = 0; i < SEC[s].count; i++) {
            size_t at = SEC[s].prefix + 4 + i * SEC[s].size;
            snprintf(what, sizeof what, "section %s, point %u:", SEC[s].name, i);
            memcpy(b, f->bytes, f->len);
            b[at + 60 + i] ^= 0x10; /* in y (G1) or x.c0 (G2) */
            expect(f, b, f->len, CZK_ERR_EC_NOT_ON_CURVE, what);
            memcpy(b, f->bytes, f->len);
            b[at] ^= 0x80; /* the compression flag on an uncompressed point */
            expect(f, b, f->len, CZK_ERR_EC_FLAGS, what);
            memcpy(b, f->bytes, f->len);
            b[at] |= 0x1f; /* x >= p */
            expect(f, b, f->len, CZK_ERR_EC_FP_RANGE, what);
        }
    }
    free(b);
}

static void test_infinity(void **state) {
    fixture *f = *state;
    uint8_t *b = malloc(f->len);
    char what[64];
    for (size_t s = 0; s < NSEC; s++) {
        unsigned i = SEC[s].count - 1;
        size_t at = SEC[s].prefix + 4 + i * SEC[s].size;
        memcpy(b, f->bytes, f->len);
        memset(b + at, 0, SEC[s].size);
        b[at] = 0x40;
        snprintf(what, sizeof what, "section %s, point %u: G%c point at infinity", SEC[s].name, i,
                 SEC[s].size == 96 ? '1' : '2');
        expect(f, b, f->len, CZK_ERR_EC_INFINITY, what);
    }
    memcpy(b, f->bytes, f->len);
    memset(b + 576, 0, 96);
    b[576] = 0x40;
    expect(f, b, f->len, CZK_ERR_EC_INFINITY, "section vk, point 4 (delta_g1)");
    /* writing refuses infinity too */
    czk_params *p = tk_random_params(5, 2, 3, 2, 2, 1);
    memset(&p->l[1], 0, sizeof p->l[1]);
    czk_err err;
    char path[400];
    snprintf(path, sizeof path, "%s/inf.params", f->dir);
    assert_int_equal(czk_params_write(p, path, NULL, &err), CZK_ERR_INVALID_ARG);
    assert_non_null(strstr(err.msg, "section l, point 1 is infinity"));
    assert_int_equal(access(path, F_OK), -1);
    czk_params_free(p);
    free(b);
}

/*
 * A G1 point on the curve, outside G1: the first x = k with a point. ((0, 2),
 * of order 3, is not used: blst reports it as not in the group while
 * deserializing, so it never reaches the subgroup pass.)
 */
static void g1_outside(uint8_t out[96]) {
    uint8_t comp[48] = {0};
    for (uint8_t k = 1;; k++) {
        comp[0] = 0x80;
        comp[47] = k;
        czk_g1_affine p;
        czk_err err;
        if (czk_g1_decode_trusted(&p, comp, 48, &err) == CZK_OK && !blst_p1_affine_in_g1(&p)) {
            czk_g1_serialize(out, &p);
            return;
        }
    }
}

/* A G2 point on the curve, outside G2: the first x = (k, 0) that has one. */
static void g2_outside(uint8_t out[192]) {
    uint8_t comp[96] = {0};
    for (uint8_t k = 1;; k++) {
        comp[0] = 0x80;
        comp[95] = k;
        czk_g2_affine p;
        czk_err err;
        if (czk_g2_decode_trusted(&p, comp, 96, &err) == CZK_OK && !blst_p2_affine_in_g2(&p)) {
            czk_g2_serialize(out, &p);
            return;
        }
    }
}

static void test_not_in_group(void **state) {
    fixture *f = *state;
    uint8_t *b = malloc(f->len), g1[96], g2[192];
    g1_outside(g1);
    g2_outside(g2);
    char what[64];
    for (size_t s = 0; s < NSEC; s++) {
        unsigned i = s % SEC[s].count;
        size_t at = SEC[s].prefix + 4 + i * SEC[s].size;
        memcpy(b, f->bytes, f->len);
        memcpy(b + at, SEC[s].size == 96 ? g1 : g2, SEC[s].size);
        snprintf(what, sizeof what, "section %s, point %u: G%c point: not in the prime-order",
                 SEC[s].name, i, SEC[s].size == 96 ? '1' : '2');
        expect(f, b, f->len, CZK_ERR_EC_NOT_IN_GROUP, what);
        czk_err err;
        assert_int_equal(decode_both(f, b, f->len, CZK_PARAMS_FULL_CHECK, &err),
                         CZK_ERR_EC_NOT_IN_GROUP);
        assert_non_null(strstr(err.msg, what));
    }
    memcpy(b, f->bytes, f->len);
    memcpy(b + 384, g2, 192);
    expect(f, b, f->len, CZK_ERR_EC_NOT_IN_GROUP, "section vk, point 3 (gamma_g2)");
    /* two bad points: the lower index is named, whatever the thread timing */
    memcpy(b, f->bytes, f->len);
    memcpy(b + OFF_H + 4 + 5 * 96, g1, 96);
    memcpy(b + OFF_H + 4 + 2 * 96, g1, 96);
    expect(f, b, f->len, CZK_ERR_EC_NOT_IN_GROUP, "section h, point 2:");
    free(b);
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void test_length_prefixes(void **state) {
    fixture *f = *state;
    uint8_t *b = malloc(f->len + 1);
    const struct {
        size_t off;
        uint32_t v;
        czk_status want;
        const char *what;
    } cases[] = {
        {OFF_IC, 0, CZK_ERR_FORMAT, "section ic: length prefix 0"},
        {OFF_IC, 0xffffffffu, CZK_ERR_TRUNCATED, "section ic: length prefix 4294967295"},
        /* ic's last point then takes h's prefix and h's point 0: its y, h[0].x's last
         * bytes and h[0].y's first, is not below p (seed 11) */
        {OFF_IC, 4, CZK_ERR_EC_FP_RANGE, "section ic, point 3: G1 point: coordinate bytes 48..95"},
        {OFF_H, 6, CZK_ERR_FORMAT, "section h: length prefix 6 is not 2^k - 1"},
        {OFF_H, 63, CZK_ERR_TRUNCATED, "section h: length prefix 63"},
        {OFF_L, 0x7fffffffu, CZK_ERR_TRUNCATED, "section l: length prefix 2147483647"},
        {OFF_A, 2, CZK_ERR_FORMAT, "section a: length prefix 2 is outside [ic, ic + l] = [3, 8]"},
        {OFF_A, 9, CZK_ERR_FORMAT, "section a: length prefix 9 is outside"},
        {OFF_B1, 9, CZK_ERR_FORMAT, "section b_g1: length prefix 9 exceeds ic + l = 8"},
        {OFF_B2, 2, CZK_ERR_FORMAT, "section b_g2: length prefix 2 differs from b_g1's 3"},
        {OFF_B2, 4, CZK_ERR_FORMAT, "section b_g2: length prefix 4 differs"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(b, f->bytes, f->len);
        put_be32(b + cases[c].off, cases[c].v);
        expect(f, b, f->len, cases[c].want, cases[c].what);
    }
    memcpy(b, f->bytes, f->len);
    b[f->len] = 0;
    expect(f, b, f->len + 1, CZK_ERR_FORMAT, "1 bytes after section b_g2 (byte 3768)");
    free(b);
}

static void set_mtime(const char *path, long sec) {
    struct timeval tv[2] = {{sec, 0}, {sec, 0}};
    assert_int_equal(utimes(path, tv), 0);
}

/* Notices (CZK_PARAMS_NOTICE) among a read's progress reports: their count, the last one. */
typedef struct notices {
    int n;
    char last[600];
} notices;

static void notice_record(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    notices *r = ctx;
    assert_true(done <= total);
    if (strncmp(stage, CZK_PARAMS_NOTICE, strlen(CZK_PARAMS_NOTICE))) return;
    r->n++;
    snprintf(r->last, sizeof r->last, "%s", stage);
}

/* The number of stamp files in dir. */
static int stamp_count(const char *dir) {
    char cmd[700], line[64] = {0};
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.stamp$'", dir);
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    assert_non_null(fgets(line, sizeof line, pp));
    pclose(pp);
    return atoi(line);
}

static void test_stamps(void **state) {
    fixture *f = *state;
    notices nt = {0};
    czk_params_read_opts o = {
        .stamp_dir = f->stamps, .pool = f->pool, .progress = notice_record, .progress_ctx = &nt};
    czk_params_read_info info;
    czk_params *p;
    czk_err err;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.stamp_written);
    assert_true(info.seconds_subgroup > 0);
    czk_params_free(p);
    /* the full check was announced once, saying why and how long */
    assert_int_equal(nt.n, 1);
    char want[600];
    snprintf(want, sizeof want,
             "full check: no stamp in %s for these bytes and no published Filecoin digest (a "
             "first read of these keys); every point's subgroup membership is checked now: less "
             "than a second on 3 threads, once",
             f->stamps);
    assert_memory_equal(nt.last, want, strlen(want));
    /* the stamp: one file, named by SHA-256 of the size (8 bytes, little-endian) and the first
     * bytes (here the whole file), holding the size, that key and the tree digest */
    uint8_t *keyed = malloc(8 + f->len), key[32];
    for (int i = 0; i < 8; i++)
        keyed[i] = (uint8_t)((uint64_t)f->len >> (8 * i));
    memcpy(keyed + 8, f->bytes, f->len);
    blst_sha256(key, keyed, 8 + f->len);
    free(keyed);
    char kx[65], dx[129], sp[400];
    czk_g16_hex(kx, key, 32);
    czk_g16_hex(dx, info.tree, 64);
    assert_int_equal(stamp_count(f->stamps), 1);
    snprintf(sp, sizeof sp, "%s/%s.stamp", f->stamps, kx);
    size_t sl;
    char *text = (char *)czk_test_read(sp, &sl);
    snprintf(want, sizeof want,
             "czk params stamp 3\nsize %zu\nhead-sha256 %s\nblake2b512-tree64m %s\n", f->len, kx,
             dx);
    assert_int_equal(sl, strlen(want));
    assert_memory_equal(text, want, sl);
    free(text);
    /* the first read computed the plain digest too (no stamp matched) */
    assert_true(info.has_blake2b);

    nt.n = 0;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.stamp_written);
    assert_true(info.seconds_subgroup == 0);
    assert_int_equal(nt.n, 0);
    assert_false(info.has_blake2b); /* a stamp matched before the read: the tree digest only */
    assert_string_equal(info.digest, "");
    assert_params_equal(p, f->params);
    czk_params_free(p);
    /* forced full check: inline, not announced */
    o.flags = CZK_PARAMS_FULL_CHECK;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_int_equal(nt.n, 0);
    czk_params_free(p);
    o.flags = 0;
    /* the stamp is the content's: another mtime changes nothing */
    set_mtime(f->path, 1000000000);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.stamp_written);
    czk_params_free(p);
    /* keys copied to another directory (another path, inode and mtime): the same stamp, no
     * subgroup pass, no notice, no second stamp */
    char other[400], copy[500], cmd[1600];
    snprintf(other, sizeof other, "%s/elsewhere", f->dir);
    snprintf(copy, sizeof copy, "%s/copied.params", other);
    snprintf(cmd, sizeof cmd, "mkdir '%s' && cp '%s' '%s'", other, f->path, copy);
    assert_int_equal(system(cmd), 0);
    czk_assert_ok(czk_params_read(&p, copy, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_true(info.seconds_subgroup == 0);
    assert_false(info.stamp_written);
    assert_int_equal(nt.n, 0);
    assert_params_equal(p, f->params);
    czk_params_free(p);
    assert_int_equal(stamp_count(f->stamps), 1);
    /* other contents, same size and beginning: the stamp is found but the digest differs, so
     * every point is checked, the notice says why, and a point outside the subgroup is found
     * although a stamp exists for the size and beginning */
    uint8_t *b = malloc(f->len), g1[96];
    memcpy(b, f->bytes, f->len);
    g1_outside(g1);
    memcpy(b + OFF_L + 4 + 96, g1, 96);
    czk_test_write(f->path, b, f->len);
    czk_test_write(copy, b, f->len);
    assert_int_equal(czk_params_read(&p, f->path, &o, &info, &err), CZK_ERR_EC_NOT_IN_GROUP);
    assert_non_null(strstr(err.msg, "section l, point 1"));
    assert_null(p);
    assert_int_equal(nt.n, 1);
    /* the file is shorter than 64 KiB: its beginning is all of it, so the key differs; the
     * announced reason is the first-read one */
    assert_non_null(strstr(nt.last, "no stamp in"));
    /* CZK_PARAMS_NO_STAMP writes none, and says so */
    czk_test_write(f->path, f->bytes, f->len);
    o.flags = CZK_PARAMS_NO_STAMP;
    nt.n = 0;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_false(info.stamp_written);
    assert_int_equal(nt.n, 1);
    assert_non_null(strstr(nt.last, "full check: stamps are off (CZK_PARAMS_NO_STAMP); every"));
    czk_params_free(p);
    free(b);
}

/* Runs a shell command and returns its first output line (without the newline). */
static void sh_line(const char *cmd, char *out, size_t cap) {
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    out[0] = 0;
    assert_non_null(fgets(out, (int)cap, pp));
    out[strcspn(out, "\n")] = 0;
    assert_int_equal(pclose(pp), 0);
}

/* The plain and the tree digest of the first `len` bytes of a file, by Python's hashlib. */
static void py_digests(const char *path, size_t len, char plain[129], char tree[129]) {
    char cmd[1200], line[300];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib, sys\n"
             "d = open(sys.argv[1], \"rb\").read()[:int(sys.argv[2])]\n"
             "P = 2 ** 26\n"
             "t = b\"\".join(hashlib.blake2b(d[i:i + P]).digest() for i in range(0, len(d), P))\n"
             "print(hashlib.blake2b(d).hexdigest(), hashlib.blake2b(t).hexdigest())' '%s' %zu",
             path, len);
    sh_line(cmd, line, sizeof line);
    assert_int_equal(strlen(line), 257);
    memcpy(plain, line, 128);
    plain[128] = 0;
    memcpy(tree, line + 129, 128);
    tree[128] = 0;
}

/*
 * czk_tree_digest against Python's hashlib (the definition in groth16.h) for lengths around the
 * 64 MiB piece size: none, one short piece, exactly one piece, one byte more, two pieces and a
 * part.
 */
static void test_tree_digest(void **state) {
    fixture *f = *state;
    const size_t P = (size_t)CZK_TREE_PIECE_BYTES, lens[] = {0, 1, 1000, P, P + 1, 2 * P + 12345};
    size_t max = lens[sizeof lens / sizeof lens[0] - 1];
    uint8_t *b = malloc(max);
    assert_non_null(b);
    czk_rng rng;
    czk_rng_seed(&rng, 99);
    for (size_t i = 0; i + 8 <= max; i += 8) {
        uint64_t r = czk_rng_u64(&rng);
        memcpy(b + i, &r, 8);
    }
    char path[400];
    snprintf(path, sizeof path, "%s/random.bin", f->dir);
    czk_test_write(path, b, max);
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        uint8_t d[64];
        char hx[129], plain[129], tree[129];
        czk_err err;
        czk_assert_ok(czk_tree_digest(d, b, lens[k], f->pool, &err), &err);
        czk_g16_hex(hx, d, 64);
        py_digests(path, lens[k], plain, tree);
        if (strcmp(hx, tree)) fail_msg("length %zu: tree digest %s, Python %s", lens[k], hx, tree);
        /* not the plain digest, except for no data: no pieces, the digest of nothing */
        if (lens[k]) assert_string_not_equal(hx, plain);
    }
    free(b);
}

/* Parameters of about 70 MB (two pieces) from few random points, repeated. */
static czk_params *big_params(void) {
    czk_params *r = tk_random_params(21, 2, 7, 5, 3, 2);
    const uint32_t nh = (1u << 19) - 1, nl = 190000;
    czk_g1_affine *h = czk_g16_alloc(nh * sizeof *h), *l = czk_g16_alloc(nl * sizeof *l);
    assert_true(h && l);
    for (uint32_t i = 0; i < nh; i++)
        h[i] = r->h[i % 7];
    for (uint32_t i = 0; i < nl; i++)
        l[i] = r->l[(i * 7) % 5];
    czk_g16_free(r->h);
    czk_g16_free(r->l);
    r->h = h;
    r->l = l;
    r->h_len = nh;
    r->l_len = nl;
    return r;
}

/*
 * A stamp as czk wrote them before format 3, keyed by the file's path: format 1 (the plain
 * digest) or 2 (the tree digest), digest_hex the 128 hex digits it holds. Every other stamp in
 * dir is removed first.
 */
static void legacy_stamp(const char *dir, const char *path, unsigned format,
                         const char *digest_hex) {
    char cmd[700], abs[PATH_MAX], hx[65], sp[800];
    snprintf(cmd, sizeof cmd, "rm -f '%s'/*.stamp", dir);
    assert_int_equal(system(cmd), 0);
    assert_non_null(realpath(path, abs));
    uint8_t h[32];
    blst_sha256(h, (const uint8_t *)abs, strlen(abs));
    czk_g16_hex(hx, h, 32);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    snprintf(sp, sizeof sp, "%s/%s.stamp", dir, hx);
    FILE *f = fopen(sp, "w");
    assert_non_null(f);
    fprintf(f,
            "czk params stamp %u\npath %s\nsize %llu\nmtime_ns %lld\ndev %llu\nino %llu\n%s %s\n",
            format, abs, (unsigned long long)sb.st_size,
            (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
            (unsigned long long)sb.st_dev, (unsigned long long)sb.st_ino,
            format == 1 ? "blake2b512" : "blake2b512-tree64m", digest_hex);
    assert_int_equal(fclose(f), 0);
}

/*
 * A file of two pieces (the reader's ring, a 16 MiB take straddling the piece boundary, parallel
 * piece hashes): written stamped, read with the stamp (the tree digest only, Python's), then
 * with only a format-1 stamp as czk wrote them before the tree digest (keyed by the path, plain
 * digest from Python): the reader computes the plain digest, trusts the stamp and writes a
 * format-3 one; then a format-2 stamp of the path, likewise.
 */
static void test_big_file(void **state) {
    fixture *f = *state;
    czk_params *pa = big_params();
    char path[400], plain[129], tree[129], hx[129];
    snprintf(path, sizeof path, "%s/big.params", f->dir);
    czk_err err;
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(pa, path, f->stamps, &stamped, f->pool, &err), &err);
    assert_true(stamped);
    uint64_t size = czk_params_encoded_size(pa);
    assert_true(size > CZK_TREE_PIECE_BYTES && size < 2 * CZK_TREE_PIECE_BYTES);
    py_digests(path, (size_t)size, plain, tree);

    czk_params_read_opts o = {.stamp_dir = f->stamps, .pool = f->pool};
    czk_params_read_info info;
    czk_params *p;
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.has_blake2b);
    assert_false(info.stamp_written);
    assert_int_equal(info.bytes, size);
    czk_g16_hex(hx, info.tree, 64);
    assert_string_equal(hx, tree);
    assert_params_equal(p, pa);
    czk_params_free(p);

    /* only a format-1 stamp of the path */
    legacy_stamp(f->stamps, path, 1, plain);
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_true(info.has_blake2b);
    czk_g16_hex(hx, info.blake2b, 64);
    assert_string_equal(hx, plain);
    assert_memory_equal(info.digest, plain, 32);
    czk_g16_hex(hx, info.tree, 64);
    assert_string_equal(hx, tree);
    assert_true(info.seconds_subgroup == 0);
    assert_true(info.stamp_written); /* rewritten by content */
    czk_params_free(p);
    assert_int_equal(stamp_count(f->stamps), 2);
    char cmd[1200], line[400];
    snprintf(cmd, sizeof cmd,
             "grep -l '^czk params stamp 3$' '%s'/*.stamp | xargs grep -c "
             "'^blake2b512-tree64m %s$'",
             f->stamps, tree);
    FILE *pp = popen(cmd, "r");
    assert_non_null(pp);
    assert_non_null(fgets(line, sizeof line, pp));
    assert_string_equal(line, "1\n");
    pclose(pp);
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.has_blake2b);
    assert_false(info.stamp_written);
    czk_params_free(p);
    /* only a format-2 stamp of the path: the tree digest alone, rewritten by content */
    legacy_stamp(f->stamps, path, 2, tree);
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.has_blake2b);
    assert_true(info.stamp_written);
    czk_params_free(p);
    /* a second file of the same size and first 64 KiB (its last two G2 points swapped: other
     * bytes, still valid): checked in full and stamped under the same content key, without
     * evicting the first file's digest — both keep their stamps */
    char path2[420];
    snprintf(path2, sizeof path2, "%s/big-swapped.params", f->dir);
    size_t len = 0;
    uint8_t *b = czk_test_read(path, &len), t[192];
    assert_int_equal(len, size);
    memcpy(t, b + len - 384, 192);
    memmove(b + len - 384, b + len - 192, 192);
    memcpy(b + len - 192, t, 192);
    assert_memory_not_equal(b + len - 384, b + len - 192, 192);
    czk_test_write(path2, b, len);
    free(b);
    czk_assert_ok(czk_params_read(&p, path2, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.stamp_written);
    czk_params_free(p);
    const char *both[2] = {path, path2};
    for (int k = 0; k < 2; k++) {
        czk_assert_ok(czk_params_read(&p, both[k], &o, &info, &err), &err);
        assert_int_equal(info.trust, CZK_TRUST_STAMP);
        assert_false(info.stamp_written);
        czk_params_free(p);
    }
    czk_params_free(pa);
}

/*
 * A stamp counts only for the same bytes: refused after a size change (other parameters), for
 * other bytes under a format-2 stamp of the path, and for a format-1 stamp whose plain digest
 * differs; a copy renamed over the file (another inode, the same bytes) keeps its stamp.
 */
static void test_stamp_refusals(void **state) {
    fixture *f = *state;
    notices nt = {0};
    czk_params_read_opts o = {
        .stamp_dir = f->stamps, .pool = f->pool, .progress = notice_record, .progress_ctx = &nt};
    czk_params_read_info info;
    czk_params *p;
    czk_err err;
    set_mtime(f->path, 1500000000);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_true(info.stamp_written);
    czk_params_free(p);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    czk_params_free(p);
    /* another inode: copied next to it and renamed over it; the same bytes keep the stamp */
    char cmd[2000], tmp[400];
    snprintf(tmp, sizeof tmp, "%s.copy", f->path);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && mv '%s' '%s'", f->path, tmp, tmp, f->path);
    assert_int_equal(system(cmd), 0);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_false(info.stamp_written);
    czk_params_free(p);
    /* another size: other parameters written into the same inode, the same mtime */
    czk_params *q = tk_random_params(12, IC, H + 8, L, A, B);
    snprintf(tmp, sizeof tmp, "%s/other.params", f->dir);
    czk_assert_ok(czk_params_write(q, tmp, NULL, &err), &err);
    size_t qn;
    uint8_t *qb = czk_test_read(tmp, &qn);
    assert_int_not_equal(qn, f->len);
    czk_test_write(f->path, qb, qn);
    free(qb);
    set_mtime(f->path, 1500000000);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_params_equal(p, q);
    czk_params_free(p);
    czk_params_free(q);
    /* a format-2 stamp of the path whose tree digest is not the file's: checked, and the
     * notice says the stamp is for other bytes */
    char zeros[129];
    snprintf(zeros, sizeof zeros, "%0128d", 0);
    legacy_stamp(f->stamps, f->path, 2, zeros);
    nt.n = 0;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.stamp_written);
    assert_int_equal(nt.n, 1);
    char want[600];
    snprintf(want, sizeof want,
             "full check: its stamp in %s is for other bytes (the file changed after it was "
             "checked); every point",
             f->stamps);
    assert_memory_equal(nt.last, want, strlen(want));
    czk_params_free(p);
    /* a format-1 stamp with another plain digest */
    legacy_stamp(f->stamps, f->path, 1, zeros);
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.has_blake2b);
    assert_true(info.stamp_written);
    czk_params_free(p);
}

/*
 * The digest of a fixed file: parameters from seed 7 (ic 2, h 3, l 2, a 2, b 1).
 * Expected: python3 hashlib.blake2b(open(path, 'rb').read()).hexdigest() of the
 * file this test writes.
 */
static void test_digest(void **state) {
    fixture *f = *state;
    czk_params *p = tk_random_params(7, 2, 3, 2, 2, 1);
    char path[400];
    snprintf(path, sizeof path, "%s/seven.params", f->dir);
    czk_err err;
    czk_assert_ok(czk_params_write(p, path, NULL, &err), &err);
    czk_params_free(p);
    czk_params_read_opts o = {.flags = CZK_PARAMS_NO_STAMP};
    czk_params_read_info info;
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    czk_params_free(p);
    char hx[129];
    czk_g16_hex(hx, info.blake2b, 64);
    assert_string_equal(hx, "6cc7971b1f0a9de18ba368fe5b7305afdcfcafc357179f486a30df209f0e433dc14895"
                            "155fe3fc0db2a0b6566b77d8c4f19fef6e8a5c044a9263465ae9675a82");
    assert_int_equal(strlen(info.digest), 32);
    assert_memory_equal(info.digest, hx, 32);
    assert_null(info.known);
}

static void test_known_digests(void **state) {
    (void)state;
    const char *n = czk_params_known_digest("6a388072a518cf46ebd661f5cc46900a");
    assert_non_null(n);
    assert_string_equal(n, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-"
                           "sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a"
                           "01bfef7820.params");
    n = czk_params_known_digest("dc1ade9929ade1708238f155343044ac");
    assert_non_null(n);
    assert_non_null(strstr(n, "-8-0-0-sha256_hasher-032d3138"));
    assert_non_null(strstr(n, ".vk"));
    assert_null(czk_params_known_digest("6a388072a518cf46ebd661f5cc46900b"));
    assert_null(czk_params_known_digest("6a388072a518cf46ebd661f5cc4690"));
    assert_null(czk_params_known_digest(""));
}

static void test_check_lengths(void **state) {
    fixture *f = *state;
    czk_err err;
    czk_assert_ok(czk_params_check_lengths(f->params, IC, H, L, A, B, &err), &err);
    czk_assert_ok(czk_params_check_lengths(f->params, UINT64_MAX, UINT64_MAX, L, UINT64_MAX,
                                           UINT64_MAX, &err),
                  &err);
    assert_int_equal(czk_params_check_lengths(f->params, IC, 15, L, A, B, &err), CZK_ERR_MISMATCH);
    assert_string_equal(err.msg, "params: section h holds 7 points, the circuit needs 15");
    assert_int_equal(czk_params_check_lengths(f->params, IC, H, L, A, 4, &err), CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "section b_g1 holds 3"));
    assert_int_equal(czk_params_check_lengths(f->params, 4, H, L, A, B, &err), CZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "section ic"));
}

static void test_io_errors(void **state) {
    fixture *f = *state;
    czk_params *p;
    czk_err err;
    char path[400];
    snprintf(path, sizeof path, "%s/missing.params", f->dir);
    assert_int_equal(czk_params_read(&p, path, NULL, NULL, &err), CZK_ERR_IO);
    assert_non_null(strstr(err.msg, "missing.params"));
    assert_int_equal(czk_params_read(&p, f->dir, NULL, NULL, &err), CZK_ERR_IO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    czk_vk vk;
    assert_int_equal(czk_vk_read(&vk, path, &err), CZK_ERR_IO);
}

/* ---- progress reports ---- */

typedef struct prog_call {
    char stage[600];
    uint64_t done, total;
} prog_call;

typedef struct prog_rec {
    size_t n;
    prog_call c[256];
} prog_rec;

static void prog_record(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    prog_rec *r = ctx;
    assert_true(r->n < sizeof r->c / sizeof r->c[0]);
    assert_true(strlen(stage) < sizeof r->c[0].stage);
    prog_call *c = &r->c[r->n++];
    snprintf(c->stage, sizeof c->stage, "%s", stage);
    c->done = done;
    c->total = total;
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (uint64_t)sb.st_size;
}

/*
 * The properties every sequence of reports keeps: total is the file size in
 * every call, done <= total, done never decreases within a pass (the
 * subgroup pass, stages "subgroup ...", follows the reading pass and may
 * start lower), and the last call has done == total.
 */
static void check_calls(const prog_rec *r, uint64_t size) {
    assert_true(r->n > 0);
    bool sub = false;
    for (size_t i = 0; i < r->n; i++) {
        const prog_call *c = &r->c[i];
        assert_int_equal(c->total, size);
        assert_true(c->done <= c->total);
        bool s = !strncmp(c->stage, "subgroup ", 9);
        assert_true(s || !sub); /* no reading-pass report after the subgroup pass began */
        if (i && s == sub) assert_true(c->done >= r->c[i - 1].done);
        if (s && !sub) assert_int_equal(r->c[i - 1].done, size); /* the reading pass ended */
        sub = s;
    }
    assert_int_equal(r->c[r->n - 1].done, size);
}

/* Calls equal to the expected (stage, done) list; an expected CZK_PARAMS_NOTICE stands for any
 * notice (its text is test_stamps'). */
static void expect_calls(const prog_rec *r, const char *const *stage, const uint64_t *done,
                         size_t n) {
    for (size_t i = 0; i < r->n && i < n; i++) {
        if (!strcmp(stage[i], CZK_PARAMS_NOTICE))
            assert_memory_equal(r->c[i].stage, stage[i], strlen(stage[i]));
        else
            assert_string_equal(r->c[i].stage, stage[i]);
        assert_int_equal(r->c[i].done, done[i]);
    }
    assert_int_equal(r->n, n);
}

/*
 * Every section of the test file is one piece, so the reports are exactly
 * the section ends, at the offsets computed by hand above (OFF_*).
 */
static const char *const READ_STAGE[] = {"vk", "ic", "h", "l", "a", "b_g1", "b_g2"};
static const uint64_t READ_DONE[] = {OFF_IC, OFF_H, OFF_L, OFF_A, OFF_B1, OFF_B2, FILE_BYTES};
static const char *const BOTH_STAGE[] = {"vk",
                                         "ic",
                                         "h",
                                         "l",
                                         "a",
                                         "b_g1",
                                         "b_g2",
                                         "subgroup h",
                                         "subgroup l",
                                         "subgroup a",
                                         "subgroup b_g1",
                                         "subgroup b_g2"};
static const uint64_t BOTH_DONE[] = {OFF_IC,     OFF_H, OFF_L, OFF_A,  OFF_B1, OFF_B2,
                                     FILE_BYTES, OFF_L, OFF_A, OFF_B1, OFF_B2, FILE_BYTES};
/* A file read with the subgroup pass: the notice comes between the passes (done: the end) */
static const char *const FILE_STAGE[] = {"vk",
                                         "ic",
                                         "h",
                                         "l",
                                         "a",
                                         "b_g1",
                                         "b_g2",
                                         CZK_PARAMS_NOTICE,
                                         "subgroup h",
                                         "subgroup l",
                                         "subgroup a",
                                         "subgroup b_g1",
                                         "subgroup b_g2"};
static const uint64_t FILE_DONE[] = {OFF_IC, OFF_H,      OFF_L,      OFF_A, OFF_B1,
                                     OFF_B2, FILE_BYTES, FILE_BYTES, OFF_L, OFF_A,
                                     OFF_B1, OFF_B2,     FILE_BYTES};

static void test_progress(void **state) {
    fixture *f = *state;
    uint64_t size = file_size(f->path);
    assert_int_equal(size, FILE_BYTES);
    prog_rec *r = calloc(1, sizeof *r);
    czk_params_read_opts o = {.flags = CZK_PARAMS_FULL_CHECK | CZK_PARAMS_NO_STAMP,
                              .pool = f->pool,
                              .progress = prog_record,
                              .progress_ctx = r};
    czk_params *p;
    czk_err err;
    /* full check inline: one pass */
    czk_assert_ok(czk_params_read(&p, f->path, &o, NULL, &err), &err);
    czk_params_free(p);
    check_calls(r, size);
    expect_calls(r, READ_STAGE, READ_DONE, 7);
    /* the subgroup check as a pass of its own, announced */
    memset(r, 0, sizeof *r);
    o.flags = CZK_PARAMS_NO_STAMP;
    czk_assert_ok(czk_params_read(&p, f->path, &o, NULL, &err), &err);
    czk_params_free(p);
    check_calls(r, size);
    expect_calls(r, FILE_STAGE, FILE_DONE, 13);
    /* from memory the same, without the notice */
    memset(r, 0, sizeof *r);
    czk_assert_ok(czk_params_decode(&p, f->bytes, f->len, &o, NULL, &err), &err);
    czk_params_free(p);
    check_calls(r, size);
    expect_calls(r, BOTH_STAGE, BOTH_DONE, 12);
    /* stamps: the first read checks (two passes) and stamps, the second trusts (one) */
    o.flags = 0;
    o.stamp_dir = f->stamps;
    memset(r, 0, sizeof *r);
    czk_assert_ok(czk_params_read(&p, f->path, &o, NULL, &err), &err);
    czk_params_free(p);
    expect_calls(r, FILE_STAGE, FILE_DONE, 13);
    memset(r, 0, sizeof *r);
    czk_params_read_info info;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    czk_params_free(p);
    expect_calls(r, READ_STAGE, READ_DONE, 7);
    /* a point outside the subgroup in l, point 1: the reports stop after subgroup h */
    uint8_t *b = malloc(f->len), g1[96];
    memcpy(b, f->bytes, f->len);
    g1_outside(g1);
    memcpy(b + OFF_L + 4 + 96, g1, 96);
    memset(r, 0, sizeof *r);
    o.flags = CZK_PARAMS_NO_STAMP;
    assert_int_equal(czk_params_decode(&p, b, f->len, &o, NULL, &err), CZK_ERR_EC_NOT_IN_GROUP);
    expect_calls(r, BOTH_STAGE, BOTH_DONE, 8);
    free(b);
    free(r);
}

/*
 * A section longer than one 16 MiB piece: l with 174763 points, one more
 * than fit in 16 MiB (16777216 / 96 = 174762.67). After its first piece the
 * reader reports a point inside l (16 MiB is far above 1 % of the file).
 * Offsets by hand: vk 864, ic 4 + 96, h 4 + 96, then l's prefix (4 bytes).
 */
#define BIG_L 174763u
static void test_progress_pieces(void **state) {
    fixture *f = *state;
    czk_params *pa = tk_random_params(5, 1, 1, 1, 1, 1);
    czk_g16_free(pa->l);
    pa->l = czk_g16_alloc((size_t)BIG_L * sizeof(czk_g1_affine));
    assert_non_null(pa->l);
    for (uint32_t i = 0; i < BIG_L; i++)
        pa->l[i] = *blst_p1_affine_generator();
    pa->l_len = BIG_L;
    char path[400];
    snprintf(path, sizeof path, "%s/big.params", f->dir);
    czk_err err;
    /* stamped, so that the read skips the (slow) subgroup pass */
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(pa, path, f->stamps, &stamped, f->pool, &err), &err);
    assert_true(stamped);
    uint64_t size = file_size(path);
    const uint64_t off_l = 864 + 4 + 96 + 4 + 96, off_a = off_l + 4 + (uint64_t)BIG_L * 96;
    assert_int_equal(size, off_a + 4 + 96 + 4 + 96 + 4 + 192);
    prog_rec *r = calloc(1, sizeof *r);
    czk_params_read_opts o = {
        .stamp_dir = f->stamps, .pool = f->pool, .progress = prog_record, .progress_ctx = r};
    czk_params *p;
    czk_params_read_info info;
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_int_equal(p->l_len, BIG_L);
    czk_params_free(p);
    check_calls(r, size);
    static const char *const stage[] = {"vk", "ic", "h", "l", "l", "a", "b_g1", "b_g2"};
    const uint64_t done[] = {864,
                             864 + 4 + 96,
                             off_l,
                             off_l + 4 + 174762u * 96,
                             off_a,
                             off_a + 4 + 96,
                             off_a + 2 * (4 + 96),
                             size};
    expect_calls(r, stage, done, 8);
    free(r);
    czk_params_free(pa);
}

/* ---- encoded reads (CZK_PARAMS_ENCODED) ---- */

/* The five vectors of p hold exactly the file's encodings b of the points (sections at off[k]). */
static void assert_vectors_are_file(const czk_params *p, const uint8_t *b, const uint64_t off[5]) {
    const void *v[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    uint32_t n[5] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(be32(b + off[k]), n[k]);
        assert_memory_equal(v[k], b + off[k] + 4, (size_t)n[k] * (k == 4 ? 192 : 96));
    }
}

static const uint64_t TEST_OFF[5] = {OFF_H, OFF_L, OFF_A, OFF_B1, OFF_B2};

static czk_status read_enc(fixture *f, const char *path, czk_params **p, czk_params_read_info *info,
                           czk_err *err) {
    czk_params_read_opts o = {.flags = CZK_PARAMS_ENCODED, .stamp_dir = f->stamps, .pool = f->pool};
    return czk_params_read(p, path, &o, info, err);
}

/*
 * A stamped file read encoded: trusted by the stamp, the vectors are the file's bytes (the
 * offsets computed by hand), vk and ic decoded; czk_params_decode_vectors gives the points of
 * the usual read, byte for byte, and is a no-op afterwards. Without a pool too.
 */
static void test_encoded_read(void **state) {
    fixture *f = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/stamped.params", f->dir);
    czk_err err;
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(f->params, path, f->stamps, &stamped, f->pool, &err),
                  &err);
    assert_true(stamped);
    for (int serial = 0; serial < 2; serial++) {
        czk_params_read_opts o = {
            .flags = CZK_PARAMS_ENCODED, .stamp_dir = f->stamps, .pool = serial ? NULL : f->pool};
        czk_params_read_info info, ui;
        czk_params *p, *u;
        czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
        assert_int_equal(info.trust, CZK_TRUST_STAMP);
        assert_false(info.stamp_written);
        assert_int_equal(info.bytes, FILE_BYTES);
        assert_true(p->encoded);
        assert_non_null(p->lazy);
        assert_vectors_are_file(p, f->bytes, TEST_OFF);
        assert_memory_equal(&p->vk, &f->params->vk, offsetof(czk_vk, ic));
        assert_int_equal(p->vk.ic_len, IC);
        assert_memory_equal(p->vk.ic, f->params->vk.ic, IC * sizeof(czk_g1_affine));
        /* lengths only: they hold for either form */
        czk_assert_ok(czk_params_check_lengths(p, IC, H, L, A, B, &err), &err);
        /* the usual read of the same file: the same tree digest */
        o.flags = 0;
        czk_assert_ok(czk_params_read(&u, path, &o, &ui, &err), &err);
        assert_int_equal(ui.trust, CZK_TRUST_STAMP);
        assert_false(u->encoded);
        assert_memory_equal(info.tree, ui.tree, 64);
        czk_assert_ok(czk_params_decode_vectors(p, o.pool, &err), &err);
        assert_false(p->encoded);
        assert_params_equal(p, u);
        assert_params_equal(p, f->params);
        czk_assert_ok(czk_params_decode_vectors(p, o.pool, &err), &err); /* nothing left to do */
        assert_params_equal(p, u);
        czk_assert_ok(czk_params_decode_vectors(u, o.pool, &err), &err); /* never encoded */
        assert_int_equal(czk_params_check_encoded_point(p, CZK_SRS_H, 0, &err),
                         CZK_ERR_INVALID_ARG);
        czk_params_free(p);
        czk_params_free(u);
    }
}

/*
 * Two pieces (the parallel read's pieces, a vector across the piece boundary): the vectors are
 * the file's bytes, the tree digest Python's, the progress reports pass every section end, and
 * the decoded points equal the parameters written.
 */
static void test_encoded_big(void **state) {
    fixture *f = *state;
    czk_params *pa = big_params();
    char path[400], plain[129], tree[129], hx[129];
    snprintf(path, sizeof path, "%s/big.params", f->dir);
    czk_err err;
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(pa, path, f->stamps, &stamped, f->pool, &err), &err);
    assert_true(stamped);
    uint64_t size = czk_params_encoded_size(pa);
    assert_true(size > CZK_TREE_PIECE_BYTES && size < 2 * CZK_TREE_PIECE_BYTES);
    py_digests(path, (size_t)size, plain, tree);
    size_t len;
    uint8_t *b = czk_test_read(path, &len);
    assert_int_equal(len, size);
    /* offsets by hand: vk, ic (2 points), then h, l, a, b_g1, b_g2 */
    uint64_t off[5];
    off[0] = 864 + 4 + 2 * 96;
    off[1] = off[0] + 4 + (uint64_t)pa->h_len * 96;
    off[2] = off[1] + 4 + (uint64_t)pa->l_len * 96;
    off[3] = off[2] + 4 + (uint64_t)pa->a_len * 96;
    off[4] = off[3] + 4 + (uint64_t)pa->b_g1_len * 96;
    assert_int_equal(off[4] + 4 + (uint64_t)pa->b_g2_len * 192, size);
    assert_true(off[1] < CZK_TREE_PIECE_BYTES && off[2] > CZK_TREE_PIECE_BYTES); /* l straddles */
    prog_rec *r = calloc(1, sizeof *r);
    czk_params_read_opts o = {.flags = CZK_PARAMS_ENCODED,
                              .stamp_dir = f->stamps,
                              .pool = f->pool,
                              .progress = prog_record,
                              .progress_ctx = r};
    czk_params_read_info info;
    czk_params *p;
    czk_assert_ok(czk_params_read(&p, path, &o, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_true(p->encoded);
    czk_g16_hex(hx, info.tree, 64);
    assert_string_equal(hx, tree);
    assert_vectors_are_file(p, b, off);
    check_calls(r, size);
    const uint64_t ends[7] = {864, off[0], off[1], off[2], off[3], off[4], size};
    size_t at = 0;
    for (int sec = 0; sec < 7; sec++) {
        while (at < r->n &&
               !(r->c[at].done == ends[sec] && !strcmp(r->c[at].stage, READ_STAGE[sec])))
            at++;
        if (at == r->n)
            fail_msg("no report of the end of section %s (%llu)", READ_STAGE[sec],
                     (unsigned long long)ends[sec]);
    }
    for (size_t i = 0; i < r->n; i++) { /* each report names the section its offset lies in */
        int sec = 0;
        while (sec < 6 && r->c[i].done > ends[sec])
            sec++;
        assert_string_equal(r->c[i].stage, READ_STAGE[sec]);
    }
    czk_assert_ok(czk_params_decode_vectors(p, f->pool, &err), &err);
    assert_params_equal(p, pa);
    czk_params_free(p);
    free(r);
    free(b);
    czk_params_free(pa);
}

static void set_mtime_of(const char *path, long sec) {
    struct timeval tv[2] = {{sec, 0}, {sec, 0}};
    assert_int_equal(utimes(path, tv), 0);
}

/*
 * Where no stamp trusts the bytes the read decodes as without the flag: a first read (checked,
 * stamped; the second read is encoded), FULL_CHECK, NO_STAMP; other bytes under the stamp's
 * size, mtime and inode (decoded and checked, a point outside the subgroup found); a layout
 * defect under a matching stamp (the usual read names it).
 */
static void test_encoded_fallback(void **state) {
    fixture *f = *state;
    czk_params_read_info info;
    czk_params *p;
    czk_err err;
    set_mtime_of(f->path, 1600000000);
    czk_assert_ok(read_enc(f, f->path, &p, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.stamp_written);
    assert_false(p->encoded);
    assert_null(p->lazy);
    assert_params_equal(p, f->params);
    czk_params_free(p);
    czk_assert_ok(read_enc(f, f->path, &p, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_STAMP);
    assert_true(p->encoded);
    czk_params_free(p);
    czk_params_read_opts o = {.flags = CZK_PARAMS_ENCODED | CZK_PARAMS_FULL_CHECK,
                              .stamp_dir = f->stamps,
                              .pool = f->pool};
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_false(p->encoded);
    assert_params_equal(p, f->params);
    czk_params_free(p);
    o.flags = CZK_PARAMS_ENCODED | CZK_PARAMS_NO_STAMP;
    czk_assert_ok(czk_params_read(&p, f->path, &o, &info, &err), &err);
    assert_false(p->encoded);
    czk_params_free(p);
    /* l's points 0 and 1 swapped: valid, same size, mtime and inode, another digest */
    uint8_t *b = malloc(f->len), g1[96];
    memcpy(b, f->bytes, f->len);
    memcpy(b + OFF_L + 4, f->bytes + OFF_L + 4 + 96, 96);
    memcpy(b + OFF_L + 4 + 96, f->bytes + OFF_L + 4, 96);
    czk_test_write(f->path, b, f->len);
    set_mtime_of(f->path, 1600000000);
    czk_assert_ok(read_enc(f, f->path, &p, &info, &err), &err);
    assert_int_equal(info.trust, CZK_TRUST_CHECKED);
    assert_true(info.stamp_written);
    assert_true(info.seconds_subgroup > 0);
    assert_false(p->encoded);
    assert_memory_equal(&p->l[0], &f->params->l[1], sizeof p->l[0]);
    assert_memory_equal(&p->l[1], &f->params->l[0], sizeof p->l[0]);
    assert_memory_equal(p->h, f->params->h, H * sizeof *p->h);
    czk_params_free(p);
    /* a point outside the subgroup under the old stamp: found although a stamp exists */
    g1_outside(g1);
    memcpy(b + OFF_A + 4 + 2 * 96, g1, 96);
    czk_test_write(f->path, b, f->len);
    set_mtime_of(f->path, 1600000000);
    assert_int_equal(read_enc(f, f->path, &p, &info, &err), CZK_ERR_EC_NOT_IN_GROUP);
    assert_non_null(strstr(err.msg, "section a, point 2"));
    assert_null(p);
    /* a truncated file stamped as it is: the usual read names the defect */
    char path[400];
    snprintf(path, sizeof path, "%s/short.params", f->dir);
    czk_test_write(path, f->bytes, f->len - 100);
    uint8_t tree[64];
    czk_assert_ok(czk_tree_digest(tree, f->bytes, f->len - 100, NULL, &err), &err);
    assert_true(czk_g16_stamp_file(path, f->stamps, tree));
    assert_int_equal(read_enc(f, path, &p, &info, &err), CZK_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "section b_g2"));
    /* and bytes after the end */
    uint8_t *longer = calloc(1, f->len + 3);
    memcpy(longer, f->bytes, f->len);
    czk_test_write(path, longer, f->len + 3);
    czk_assert_ok(czk_tree_digest(tree, longer, f->len + 3, NULL, &err), &err);
    assert_true(czk_g16_stamp_file(path, f->stamps, tree));
    assert_int_equal(read_enc(f, path, &p, &info, &err), CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "3 bytes after section b_g2"));
    free(longer);
    free(b);
}

/* Writes bytes b to path and a stamp for them, as if an earlier check had passed them. */
static void write_stamped_bytes(fixture *f, const char *path, const uint8_t *b, size_t len) {
    czk_test_write(path, b, len);
    uint8_t tree[64];
    czk_err err;
    czk_assert_ok(czk_tree_digest(tree, b, len, NULL, &err), &err);
    assert_true(czk_g16_stamp_file(path, f->stamps, tree));
}

/*
 * Every defect class planted at a known index of a G1 section (l, point 3; h, point 6) and of
 * b_g2 (point 1), in a file a stamp trusts: the encoded read succeeds (nothing is decoded),
 * czk_params_decode_vectors and czk_params_check_encoded_point name the section, the index and
 * the defect with the reader's status, the failure is final, and consumers give the same error.
 */
static void test_encoded_defects(void **state) {
    fixture *f = *state;
    static const struct {
        uint64_t off;
        unsigned bit;
        size_t enc, index;
        const char *sec;
    } where[] = {{OFF_L, CZK_SRS_L, 96, 3, "section l, point 3"},
                 {OFF_H, CZK_SRS_H, 96, 6, "section h, point 6"},
                 {OFF_B2, CZK_SRS_B_G2, 192, 1, "section b_g2, point 1"}};
    char path[400];
    snprintf(path, sizeof path, "%s/bad.params", f->dir);
    uint8_t *b = malloc(f->len);
    czk_err err;
    for (size_t w = 0; w < sizeof where / sizeof where[0]; w++)
        for (int d = 0; d < TK_NDEF; d++) {
            if (!tk_defect_applies((tk_defect)d, where[w].enc)) continue;
            memcpy(b, f->bytes, f->len);
            tk_plant(b + where[w].off + 4 + where[w].index * where[w].enc, where[w].enc,
                     (tk_defect)d);
            write_stamped_bytes(f, path, b, f->len);
            czk_params *p;
            czk_params_read_info info;
            czk_assert_ok(read_enc(f, path, &p, &info, &err), &err);
            assert_true(p->encoded);
            czk_status want = tk_defect_status((tk_defect)d);
            const char *words = tk_defect_words((tk_defect)d, where[w].enc);
            /* the points next to it are good */
            czk_assert_ok(czk_params_check_encoded_point(p, where[w].bit, where[w].index - 1, &err),
                          &err);
            for (int call = 0; call < 3; call++) {
                czk_status st = call == 0 ? czk_params_check_encoded_point(p, where[w].bit,
                                                                           where[w].index, &err)
                                          : czk_params_decode_vectors(p, f->pool, &err);
                if (st != want || !strstr(err.msg, where[w].sec) || !strstr(err.msg, words))
                    fail_msg("%s at %s (call %d): want %s naming \"%s\" and \"%s\", got %s: %s",
                             TK_DEF_NAME[d], where[w].sec, call, czk_status_name(want),
                             where[w].sec, words, czk_status_name(st), err.msg);
            }
            assert_true(p->encoded); /* final: still encoded, the same error again */
            /* ... also for a point that is good in the file: the vectors are partly decoded */
            assert_int_equal(
                czk_params_check_encoded_point(p, where[w].bit, where[w].index - 1, &err), want);
            assert_non_null(strstr(err.msg, where[w].sec));
            /* a consumer of host points: the same error */
            char out[400];
            snprintf(out, sizeof out, "%s/rewritten.params", f->dir);
            assert_int_equal(czk_params_write(p, out, f->pool, &err), want);
            assert_non_null(strstr(err.msg, where[w].sec));
            czk_params_free(p);
        }
    free(b);
}

/* czk_params_decode_vectors from several threads at once. */
typedef struct dec_thread {
    const czk_params *p;
    czk_pool *pool;
    czk_status st;
} dec_thread;

static void *dec_thread_fn(void *arg) {
    dec_thread *t = arg;
    czk_err err;
    t->st = czk_params_decode_vectors(t->p, t->pool, &err);
    return NULL;
}

/*
 * Consumers of host points decode encoded params on first use: czk_prove on the CPU backend (the
 * proof equals the one from the parameters made by czk_setup, fixed r and s), czk_prove_finalize
 * with the G2 sum deferred, czk_params_write (the same bytes as the file), and several threads
 * at once.
 */
static void test_encoded_consumers(void **state) {
    fixture *f = *state;
    tk_circuit c = {.structure_seed = 5, .value_seed = 6, .ni = 4, .nbits = 20, .nmul = 60};
    czk_shape *shape = tk_record(&c);
    czk_rng rng;
    czk_rng_seed(&rng, 31);
    czk_toxic tox;
    czk_err err;
    czk_assert_ok(czk_toxic_random(&tox, &rng, &err), &err);
    czk_params *ref;
    czk_assert_ok(czk_setup(&ref, shape, &tox, f->pool, &err), &err);
    char path[400], path2[400];
    snprintf(path, sizeof path, "%s/circuit.params", f->dir);
    snprintf(path2, sizeof path2, "%s/circuit2.params", f->dir);
    bool stamped = false;
    czk_assert_ok(czk_params_write_stamped(ref, path, f->stamps, &stamped, f->pool, &err), &err);
    assert_true(stamped);
    czk_witness w;
    tk_witness(&c, &w);
    czk_fr r, sv;
    czk_assert_ok(czk_fr_random(&r, &rng, &err), &err);
    czk_assert_ok(czk_fr_random(&sv, &rng, &err), &err);
    czk_backend cpu;
    czk_assert_ok(czk_backend_cpu(&cpu, f->pool, &err), &err);
    czk_proof want, got;
    czk_assert_ok(czk_prove(&cpu, ref, shape, &w, 1, &r, &sv, &want, NULL, &err), &err);
    uint8_t wb[CZK_PROOF_BYTES], gb[CZK_PROOF_BYTES];
    czk_proof_encode(wb, &want);

    czk_params *p;
    czk_params_read_info info;
    czk_assert_ok(read_enc(f, path, &p, &info, &err), &err);
    assert_true(p->encoded);
    czk_assert_ok(czk_params_check_shape(p, shape, &err), &err);
    czk_assert_ok(czk_prove(&cpu, p, shape, &w, 1, &r, &sv, &got, NULL, &err), &err);
    assert_false(p->encoded);
    czk_proof_encode(gb, &got);
    assert_memory_equal(gb, wb, CZK_PROOF_BYTES);
    czk_params_free(p);

    /* the split path: the device part on decoded params, the deferred G2 sum on encoded ones */
    czk_msm_sums sums;
    unsigned deferred = 0;
    czk_assert_ok(czk_prove_device(&cpu, ref, shape, &w, NULL, &sums, &deferred, NULL, &err), &err);
    assert_int_equal(deferred, CZK_SUM_B2);
    czk_assert_ok(read_enc(f, path, &p, &info, &err), &err);
    assert_true(p->encoded);
    czk_assert_ok(
        czk_prove_finalize(p, shape, &w, &sums, deferred, &r, &sv, &got, f->pool, NULL, &err),
        &err);
    assert_false(p->encoded);
    czk_proof_encode(gb, &got);
    assert_memory_equal(gb, wb, CZK_PROOF_BYTES);
    czk_params_free(p);

    /* written again: the file's bytes */
    czk_assert_ok(read_enc(f, path, &p, &info, &err), &err);
    assert_true(p->encoded);
    czk_assert_ok(czk_params_write(p, path2, f->pool, &err), &err);
    assert_false(p->encoded);
    size_t n1, n2;
    uint8_t *b1 = czk_test_read(path, &n1), *b2 = czk_test_read(path2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    czk_params_free(p);

    /* four threads at once: one decodes, the others wait; all see the points */
    czk_assert_ok(read_enc(f, path, &p, &info, &err), &err);
    assert_true(p->encoded);
    pthread_t th[4];
    dec_thread dt[4];
    for (int k = 0; k < 4; k++) {
        dt[k] = (dec_thread){p, k % 2 ? f->pool : NULL, CZK_ERR_INTERNAL};
        assert_int_equal(pthread_create(&th[k], NULL, dec_thread_fn, &dt[k]), 0);
    }
    for (int k = 0; k < 4; k++) {
        pthread_join(th[k], NULL);
        assert_int_equal(dt[k].st, CZK_OK);
    }
    assert_false(p->encoded);
    assert_params_equal(p, ref);
    czk_params_free(p);

    czk_backend_release(&cpu);
    czk_witness_free(&w);
    czk_params_free(ref);
    czk_shape_free(shape);
    tk_circuit_free(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout_and_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drop_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flipped_byte, setup, teardown),
        cmocka_unit_test_setup_teardown(test_infinity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_in_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_length_prefixes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stamps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stamp_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tree_digest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_big_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_digest, setup, teardown),
        cmocka_unit_test(test_known_digests),
        cmocka_unit_test_setup_teardown(test_check_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_io_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress_pieces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_fallback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_defects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_encoded_consumers, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
