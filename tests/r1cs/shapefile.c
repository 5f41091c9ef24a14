/* CZK_TEST_LABELS: unit */
/*
 * The shape file: write / read round trips, and refusals of truncated,
 * corrupted, foreign and inconsistent files. Region offsets are computed here
 * from the layout documented in src/r1cs/shape_file.c; inconsistent files
 * are made by editing a valid one and recomputing its checksums, so that the
 * check behind the checksum is what refuses them. Every refusal is checked
 * twice: decoded from memory (serially) and read back from a file by the
 * parallel reader with several thread counts and pieces, ranges of rows and
 * density words far smaller than the file's, which must give the same status
 * and the same message (the path in place of "shape"); good files read that
 * way equal the shape written, array by array.
 */
#include "rand_circuit.h"
#include "r1cs/r1cs_internal.h"

#include <fcntl.h>
#include <unistd.h>

enum { HDR = 192, NREG = 13 };
static const char *const REGION[NREG] = {
    "coefficient table", "A.row_ptr", "A.col", "A.coeff", "B.row_ptr",     "B.col",
    "B.coeff",           "C.row_ptr", "C.col", "C.coeff", "a_aux density", "b_input density",
    "b_aux density"};

static void layout(const czk_shape *s, size_t off[NREG + 1]) {
    size_t size[NREG];
    size[0] = 32 * (size_t)s->num_coeffs;
    for (int m = 0; m < 3; m++) {
        size[1 + 3 * m] = 8 * (s->num_constraints + 1);
        size[2 + 3 * m] = size[3 + 3 * m] = 4 * s->m[m].nnz;
    }
    size[10] = size[12] = 8 * (((size_t)s->num_aux + 63) / 64);
    size[11] = 8 * (((size_t)s->num_inputs + 63) / 64);
    off[0] = HDR;
    for (int r = 0; r < NREG; r++)
        off[r + 1] = off[r] + size[r];
}

/* Recomputes every checksum of an edited file: region r at header 80 + 8r
 * (seed r), the header's own at 184 (seed 0x48). */
static void reseal(uint8_t *buf, const size_t off[NREG + 1]) {
    for (int r = 0; r < NREG; r++) {
        uint64_t h = czk_hash64(buf + off[r], off[r + 1] - off[r], (uint64_t)r);
        memcpy(buf + 80 + 8 * r, &h, 8);
    }
    uint64_t h = czk_hash64(buf, 184, 0x48);
    memcpy(buf + 184, &h, 8);
}

static czk_shape *make_shape(uint64_t seed, uint32_t steps) {
    rc c;
    rc_init(&c, seed, steps);
    czk_err err;
    czk_cs *cs = czk_cs_create(CZK_CS_RECORD, NULL, &err);
    czk_assert_ok(czk_cs_run(cs, rc_circuit, &c, &err), &err);
    czk_shape *s;
    czk_assert_ok(czk_cs_take_shape(cs, &s, &err), &err);
    czk_cs_free(cs);
    rc_free(&c);
    return s;
}

static char tmpdir[256];

static int setup(void **state) {
    (void)state;
    czk_test_tmpdir(tmpdir, sizeof tmpdir, "shapefile");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    czk_test_rm_rf(tmpdir);
    return 0;
}

static void test_roundtrip(void **state) {
    (void)state;
    czk_shape *s = make_shape(5, 400);
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/a.shape", tmpdir);
    snprintf(pb, sizeof pb, "%s/b.shape", tmpdir);
    czk_err err;
    czk_assert_ok(czk_shape_write(s, pa, &err), &err);
    czk_shape *t;
    czk_assert_ok(czk_shape_read(&t, pa, &err), &err);
    assert_true(czk_shape_equal(s, t));
    assert_int_equal(czk_shape_bytes(s), czk_shape_bytes(t));
    czk_assert_ok(czk_shape_write(t, pb, &err), &err);
    size_t la, lb;
    uint8_t *a = czk_test_read(pa, &la), *b = czk_test_read(pb, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    size_t off[NREG + 1];
    layout(s, off);
    assert_int_equal(la, off[NREG]);
    assert_memory_equal(a, "CZKSHAPE\x01\x00\x00\x00", 12);
    /* the in-memory encoding is the file, and decodes to the same shape */
    uint8_t *enc;
    size_t elen;
    czk_assert_ok(czk_shape_encode(s, &enc, &elen, &err), &err);
    assert_int_equal(elen, la);
    assert_memory_equal(enc, a, la);
    czk_shape *u;
    czk_assert_ok(czk_shape_decode(&u, enc, elen, &err), &err);
    assert_true(czk_shape_equal(s, u));
    /* no temporary file is left behind */
    char ptmp[520];
    snprintf(ptmp, sizeof ptmp, "%s.tmp", pa);
    assert_int_equal(access(ptmp, F_OK), -1);
    czk_shape_free(u);
    free(enc);
    free(a);
    free(b);
    czk_shape_free(t);
    czk_shape_free(s);
}

/* How the parallel reader splits a file: {threads, piece bytes, rows per range, density words
 * per range}. The first is czk_shape_read's own (one thread for so small a file). */
static const czk_shape_read_opts READS[] = {
    {0, 0, 0, 0}, {1, 0, 0, 0}, {2, 1000, 16, 1}, {3, 4096, 7, 2}, {7, 333, 1, 1}, {16, 64, 50, 3},
};
#define NREADS (sizeof READS / sizeof READS[0])

static void write_file(const char *p, const uint8_t *buf, size_t len) {
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

/* The bytes through a file and each way of reading it: the status and message of the serial
 * decode (msg, which names "shape"), with the path in its place. */
static void expect_file(const uint8_t *buf, size_t len, czk_status code, const char *msg) {
    char p[512], want[1024];
    snprintf(p, sizeof p, "%s/c.shape", tmpdir);
    write_file(p, buf, len);
    assert_true(!strncmp(msg, "shape", 5));
    snprintf(want, sizeof want, "%s%s", p, msg + 5);
    for (size_t i = 0; i < NREADS; i++) {
        czk_shape *s = (czk_shape *)1;
        czk_err err;
        czk_err_clear(&err);
        czk_status st = czk_shape_read_ex(&s, p, &READS[i], &err);
        if (st != code || strcmp(err.msg, want))
            fail_msg("length %zu, read %zu (%u threads, pieces %zu, rows %llu, words %llu): got %s "
                     "\"%s\", expected %s \"%s\"",
                     len, i, READS[i].threads, READS[i].piece_bytes,
                     (unsigned long long)READS[i].scan_rows,
                     (unsigned long long)READS[i].scan_words, czk_status_name(st), err.msg,
                     czk_status_name(code), want);
        assert_null(s);
    }
}

static void expect(const uint8_t *buf, size_t len, czk_status code, const char *needle) {
    czk_shape *s = (czk_shape *)1;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_shape_decode(&s, buf, len, &err);
    if (st != code || !strstr(err.msg, needle))
        fail_msg("length %zu: got %s \"%s\", expected %s \"...%s...\"", len, czk_status_name(st),
                 err.msg, czk_status_name(code), needle);
    assert_null(s);
    expect_file(buf, len, code, err.msg);
}

/* Every array of two shapes, naming the first that differs. */
static void assert_same_shape(const czk_shape *x, const czk_shape *y, const char *what) {
    if (x->num_inputs != y->num_inputs || x->num_aux != y->num_aux ||
        x->num_constraints != y->num_constraints || x->num_coeffs != y->num_coeffs)
        fail_msg("%s: counts differ", what);
    if (memcmp(x->coeffs, y->coeffs, x->num_coeffs * sizeof(czk_fr)))
        fail_msg("%s: coefficient table differs", what);
    for (int m = 0; m < 3; m++) {
        const czk_csr *a = &x->m[m], *b = &y->m[m];
        if (a->nnz != b->nnz) fail_msg("%s: matrix %d nnz differs", what, m);
        if (memcmp(a->row_ptr, b->row_ptr, (x->num_constraints + 1) * 8))
            fail_msg("%s: matrix %d row_ptr differs", what, m);
        if (memcmp(a->col, b->col, a->nnz * 4)) fail_msg("%s: matrix %d col differs", what, m);
        if (memcmp(a->coeff, b->coeff, a->nnz * 4))
            fail_msg("%s: matrix %d coeff differs", what, m);
    }
    const czk_bitmap *bx[3] = {&x->a_aux, &x->b_input, &x->b_aux};
    const czk_bitmap *by[3] = {&y->a_aux, &y->b_input, &y->b_aux};
    for (int i = 0; i < 3; i++)
        if (bx[i]->len != by[i]->len || bx[i]->popcount != by[i]->popcount ||
            memcmp(bx[i]->words, by[i]->words, (bx[i]->len + 63) / 64 * 8))
            fail_msg("%s: density %d differs", what, i);
}

/* A larger shape written, then read back each way: the same arrays as written, and as the
 * serial decode of the same bytes. */
static void test_parallel_read(void **state) {
    (void)state;
    czk_shape *s = make_shape(11, 3000);
    char p[512];
    snprintf(p, sizeof p, "%s/a.shape", tmpdir);
    czk_err err;
    czk_assert_ok(czk_shape_write(s, p, &err), &err);
    size_t len;
    uint8_t *bytes = czk_test_read(p, &len);
    czk_shape *serial;
    czk_assert_ok(czk_shape_decode(&serial, bytes, len, &err), &err);
    assert_same_shape(s, serial, "serial decode");
    assert_true(s->num_constraints > 1000 && len > 64 * 1024);
    for (size_t i = 0; i < NREADS; i++) {
        czk_shape *t = NULL;
        czk_assert_ok(czk_shape_read_ex(&t, p, &READS[i], &err), &err);
        char what[64];
        snprintf(what, sizeof what, "read %zu (%u threads)", i, READS[i].threads);
        assert_same_shape(s, t, what);
        assert_same_shape(serial, t, what);
        czk_shape_free(t);
    }
    czk_shape *t = NULL;
    czk_assert_ok(czk_shape_read(&t, p, &err), &err);
    assert_same_shape(s, t, "czk_shape_read");
    czk_shape_free(t);
    czk_shape_free(serial);
    free(bytes);
    czk_shape_free(s);
}

static void test_truncated(void **state) {
    (void)state;
    czk_shape *s = make_shape(6, 200);
    uint8_t *buf;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_shape_encode(s, &buf, &len, &err), &err);
    size_t cuts[] = {0, 1, 7, 8, 11, 12, 100, 191, 192, 193, len / 2, len - 8, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        if (cuts[i] < 12)
            expect(buf, cuts[i], CZK_ERR_TRUNCATED, "shorter than the 192-byte header");
        else if (cuts[i] < HDR)
            expect(buf, cuts[i], CZK_ERR_TRUNCATED, "shorter than the 192-byte header");
        else
            expect(buf, cuts[i], CZK_ERR_TRUNCATED, "truncated");
    }
    /* the same through a file */
    char p[512];
    snprintf(p, sizeof p, "%s/short.shape", tmpdir);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, len - 3), (ssize_t)(len - 3));
    close(fd);
    czk_shape *t;
    assert_int_equal(czk_shape_read(&t, p, &err), CZK_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, p));
    assert_null(t);
    czk_err derr;
    assert_int_equal(czk_shape_decode(&t, buf, len - 3, &derr), CZK_ERR_TRUNCATED);
    expect_file(buf, len - 3, CZK_ERR_TRUNCATED, derr.msg);
    /* and a trailing byte is refused too */
    uint8_t *longer = malloc(len + 1);
    memcpy(longer, buf, len);
    longer[len] = 0;
    expect(longer, len + 1, CZK_ERR_FORMAT, "1 trailing bytes");
    free(longer);
    snprintf(p, sizeof p, "%s/does-not-exist", tmpdir);
    assert_int_equal(czk_shape_read(&t, p, &err), CZK_ERR_IO);
    free(buf);
    czk_shape_free(s);
}

static void test_corrupted(void **state) {
    (void)state;
    czk_shape *s = make_shape(7, 300);
    uint8_t *buf;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_shape_encode(s, &buf, &len, &err), &err);
    size_t off[NREG + 1];
    layout(s, off);
    /* one flipped byte in each region: refused, naming the region */
    for (int r = 0; r < NREG; r++) {
        assert_true(off[r + 1] > off[r]);
        size_t at[3] = {off[r], (off[r] + off[r + 1]) / 2, off[r + 1] - 1};
        for (int i = 0; i < 3; i++) {
            buf[at[i]] ^= 0x20;
            char want[64];
            snprintf(want, sizeof want, "checksum mismatch in %s", REGION[r]);
            expect(buf, len, CZK_ERR_FORMAT, want);
            buf[at[i]] ^= 0x20;
        }
    }
    /* the header: magic, version, counts, checksums */
    buf[3] ^= 1;
    expect(buf, len, CZK_ERR_FORMAT, "bad magic");
    buf[3] ^= 1;
    buf[8] = 2;
    expect(buf, len, CZK_ERR_FORMAT, "unsupported shape file version 2 (expected 1)");
    buf[8] = 1;
    for (size_t i = 12; i < HDR; i += 7) {
        buf[i] ^= 0x80;
        expect(buf, len, CZK_ERR_FORMAT, "header checksum mismatch");
        buf[i] ^= 0x80;
    }
    czk_shape *t;
    czk_assert_ok(czk_shape_decode(&t, buf, len, &err), &err); /* restored */
    assert_true(czk_shape_equal(s, t));
    czk_shape_free(t);
    uint8_t junk[300];
    memset(junk, 'x', sizeof junk);
    expect(junk, sizeof junk, CZK_ERR_FORMAT, "bad magic");
    free(buf);
    czk_shape_free(s);
}

/* Edits a copy of a valid file, reseals it and expects the refusal. */
typedef void (*edit_fn)(uint8_t *buf, const czk_shape *s, const size_t *off);

static void expect_edit(const czk_shape *s, const uint8_t *good, size_t len, edit_fn edit,
                        const char *needle) {
    uint8_t *b = malloc(len);
    memcpy(b, good, len);
    size_t off[NREG + 1];
    layout(s, off);
    edit(b, s, off);
    reseal(b, off);
    expect(b, len, CZK_ERR_FORMAT, needle);
    free(b);
}

static void put32(uint8_t *p, uint32_t v) {
    memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v) {
    memcpy(p, &v, 8);
}

static void e_col_range(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    put32(b + off[2], 0xffffffffu);
}
static void e_coeff_ge_r(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    memset(b + off[0] + 32 * 2, 0xff, 32);
}
static void e_coeff_zero(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    memset(b + off[0] + 32 * 2, 0, 32);
}
static void e_row_ptr(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    put64(b + off[4] + 8, 1ull << 40);
}
static void e_row_ptr_start(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    put64(b + off[7], 1);
}
static void e_coeff_index(uint8_t *b, const czk_shape *s, const size_t *off) {
    put32(b + off[9], s->num_coeffs);
}
static void e_col_order(uint8_t *b, const czk_shape *s, const size_t *off) {
    /* the first row of A with two terms: swap them */
    const czk_csr *A = &s->m[0];
    for (uint64_t r = 0; r < s->num_constraints; r++)
        if (A->row_ptr[r + 1] - A->row_ptr[r] >= 2) {
            uint64_t k = A->row_ptr[r];
            put32(b + off[2] + 4 * k, A->col[k + 1]);
            put32(b + off[2] + 4 * k + 4, A->col[k]);
            return;
        }
    fail_msg("no row with two terms");
}
static void e_density_bit(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    b[off[12]] ^= 1; /* b_aux bit 0 */
}
static void e_density_tail(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s;
    b[off[11] + 7] |= 0x80; /* b_input bit 63, beyond num_inputs (< 63 here) */
}
static void e_popcount(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)off;
    put64(b + 56 + 16, s->b_aux.popcount - 1);
}
static void e_final_row(uint8_t *b, const czk_shape *s, const size_t *off) {
    /* the last row's A coefficient: point it at a coefficient other than 1 */
    uint32_t other = 0;
    while (czk_fr_is_one(&s->coeffs[other]))
        other++;
    put32(b + off[3] + 4 * (s->m[0].nnz - 1), other);
}
static void e_no_final(uint8_t *b, const czk_shape *s, const size_t *off) {
    (void)s, (void)off;
    put64(b + 24, 0); /* num_constraints below num_inputs */
}

/* Two faults in different row ranges, pieces and matrices: the one a serial read meets first
 * is the one reported, however the work is split. */
static void e_two_cols(uint8_t *b, const czk_shape *s, const size_t *off) {
    put32(b + off[2] + 4 * (s->m[0].nnz - 2), 0xfffffff0u); /* A, near its end */
    put32(b + off[5] + 4 * (s->m[1].nnz / 2), 0xffffffffu); /* B, in the middle */
}
static void e_two_orders(uint8_t *b, const czk_shape *s, const size_t *off) {
    e_two_cols(b, s, off);
    e_col_order(b, s, off); /* A, its first row of two terms */
}
static void e_late_density(uint8_t *b, const czk_shape *s, const size_t *off) {
    b[off[11] - 8] ^= 0x01; /* a_aux: bit 0 of its last word, a variable */
    e_popcount(b, s, off);
}

static void test_first_fault(void **state) {
    (void)state;
    czk_shape *s = make_shape(12, 600);
    uint8_t *buf;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_shape_encode(s, &buf, &len, &err), &err);
    size_t off[NREG + 1];
    layout(s, off);
    char want[128];
    snprintf(want, sizeof want, "A.col[%llu] = 4294967280 is out of range",
             (unsigned long long)s->m[0].nnz - 2);
    expect_edit(s, buf, len, e_two_cols, want);
    expect_edit(s, buf, len, e_two_orders, "A.col is not strictly increasing in row");
    uint64_t last_word = (s->num_aux + 63) / 64 - 1;
    snprintf(want, sizeof want, "a_aux density bit %llu is", (unsigned long long)last_word * 64);
    expect_edit(s, buf, len, e_late_density, want);
    /* two flipped bytes, in A.coeff and in C.col: the earlier region is named */
    buf[off[3] + 5] ^= 0x40;
    buf[off[8] + 9] ^= 0x40;
    expect(buf, len, CZK_ERR_FORMAT, "checksum mismatch in A.coeff");
    free(buf);
    czk_shape_free(s);
}

static void test_inconsistent(void **state) {
    (void)state;
    czk_shape *s = make_shape(8, 300);
    assert_true(s->num_inputs < 63 && s->num_coeffs > 2 && s->b_aux.popcount > 0);
    uint8_t *buf;
    size_t len;
    czk_err err;
    czk_assert_ok(czk_shape_encode(s, &buf, &len, &err), &err);
    char want[128];
    snprintf(want, sizeof want, "A.col[0] = 4294967295 is out of range (%u columns)",
             s->num_inputs + s->num_aux);
    expect_edit(s, buf, len, e_col_range, want);
    expect_edit(s, buf, len, e_coeff_ge_r, "coefficient 2 is not below r");
    expect_edit(s, buf, len, e_coeff_zero, "coefficient 2 is zero");
    expect_edit(s, buf, len, e_row_ptr, "B.row_ptr is not monotone within nnz at row 0");
    expect_edit(s, buf, len, e_row_ptr_start, "C.row_ptr[0] is 1, not 0");
    snprintf(want, sizeof want, "C.coeff[0] = %u is not below num_coeffs %u", s->num_coeffs,
             s->num_coeffs);
    expect_edit(s, buf, len, e_coeff_index, want);
    expect_edit(s, buf, len, e_col_order, "A.col is not strictly increasing in row");
    expect_edit(s, buf, len, e_density_bit, "b_aux density bit 0");
    expect_edit(s, buf, len, e_density_tail, "b_input density has bit 63 set beyond its length");
    expect_edit(s, buf, len, e_popcount, "b_aux density popcount");
    snprintf(want, sizeof want, "constraint %llu is not the finalization constraint input_%u",
             (unsigned long long)s->num_constraints - 1, s->num_inputs - 1);
    expect_edit(s, buf, len, e_final_row, want);
    expect_edit(s, buf, len, e_no_final, "finalization rows missing");
    free(buf);
    czk_shape_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_corrupted),     cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_parallel_read), cmocka_unit_test(test_first_fault),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
