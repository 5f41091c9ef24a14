/* CZK_TEST_LABELS: unit */
/*
 * Bincode FallbackPoStSectorProof parsing on blobs written here
 * (vanilla_blob.h, from spec post-snap.md §3) over native Poseidon trees
 * (tests/gadgets/native_tree.h): every field read back as written, for the
 * three TreeR variants (Single 8-0-0, Sub 8-8-0, Top 8-8-2) and both
 * WinningPoSt forms (1 SectorProof of 66 proofs, 66 of 1); the spec's
 * sizes of a 32GiB proof (2,484 B) and Window sector (24,960 B, Curio's
 * testgolden post.vproof); and the refusals, each naming the sector id,
 * the challenge and the field: every truncation, another variant, a bad
 * index, hash or element count, a value ≥ r, bytes after the end, another
 * challenge count, disagreeing SectorProofs, an unbounded length.
 */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "../gadgets/native_tree.h"
#include "czk/post.h"
#include "vanilla_blob.h"

typedef struct sector {
    czk_por_tree tree;
    nt_tree nt;
    uint8_t comm_c[32], comm_r_last[32], comm_r[32];
    unsigned nch;
    uint64_t idx[66];
} sector;

static void make_sector(sector *s, unsigned base, unsigned sub, unsigned top, uint64_t leaves,
                        unsigned nch, uint64_t seed) {
    memset(s, 0, sizeof *s);
    czk_err err;
    czk_assert_ok(czk_por_tree_for_leaves(&s->tree, CZK_POR_POSEIDON, leaves, base, sub, top, &err),
                  &err);
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_fr *l = malloc(leaves * sizeof *l);
    assert_non_null(l);
    for (uint64_t i = 0; i < leaves; i++)
        nt_random_fr(&rng, &l[i]);
    nt_build(&s->nt, &s->tree, l, leaves);
    free(l);
    czk_fr cc, pre[2], cr;
    nt_random_fr(&rng, &cc);
    pre[0] = cc;
    pre[1] = *nt_root(&s->nt);
    czk_assert_ok(czk_poseidon_hash(&cr, pre, 2, &err), &err);
    czk_fr_to_bytes(s->comm_c, &cc);
    czk_fr_to_bytes(s->comm_r_last, nt_root(&s->nt));
    czk_fr_to_bytes(s->comm_r, &cr);
    s->nch = nch;
    for (unsigned j = 0; j < nch; j++)
        s->idx[j] = czk_rng_u64(&rng) % leaves;
}

/* The blob: `groups` SectorProofs sharing the challenges evenly. */
static vb write_blob(const sector *s, uint64_t sector_id, unsigned groups) {
    vb b = {0};
    vb_u64(&b, sector_id);
    vb_put(&b, s->comm_r, 32);
    vb_u64(&b, groups);
    unsigned per = s->nch / groups, j = 0;
    for (unsigned g = 0; g < groups; g++) {
        vb_u64(&b, per);
        for (unsigned k = 0; k < per; k++, j++) {
            uint32_t pos[CZK_POR_MAX_LEVELS];
            uint8_t sib[32 * CZK_POR_MAX_LEVELS * 7], leaf[32];
            nt_path_bytes(&s->nt, s->idx[j], pos, sib);
            czk_fr_to_bytes(leaf, &s->nt.nodes[0][s->idx[j]]);
            vb_merkle(&b, &s->tree, pos, sib, s->comm_r_last, leaf);
        }
        vb_put(&b, s->comm_c, 32);
        vb_put(&b, s->comm_r_last, 32);
    }
    return b;
}

static void check_parsed(const sector *s, const czk_post_vanilla *v, uint64_t id) {
    assert_int_equal(v->sector_id, id);
    assert_memory_equal(v->comm_r, s->comm_r, 32);
    assert_memory_equal(v->comm_c, s->comm_c, 32);
    assert_memory_equal(v->comm_r_last, s->comm_r_last, 32);
    assert_int_equal(v->challenges, s->nch);
    unsigned levels = czk_por_tree_levels(&s->tree), nsib = czk_por_tree_siblings(&s->tree);
    for (unsigned j = 0; j < s->nch; j++) {
        uint32_t pos[CZK_POR_MAX_LEVELS];
        uint8_t sib[32 * CZK_POR_MAX_LEVELS * 7], leaf[32];
        nt_path_bytes(&s->nt, s->idx[j], pos, sib);
        czk_fr_to_bytes(leaf, &s->nt.nodes[0][s->idx[j]]);
        assert_memory_equal(v->leaves[j], leaf, 32);
        assert_memory_equal(v->roots[j], s->comm_r_last, 32);
        assert_memory_equal(v->paths[j].positions, pos, 4 * levels);
        assert_memory_equal(v->paths[j].siblings, sib, 32 * nsib);
    }
}

static void roundtrip(unsigned base, unsigned sub, unsigned top, uint64_t leaves) {
    sector s;
    make_sector(&s, base, sub, top, leaves, 10, leaves + top);
    vb b = write_blob(&s, 42, 1);
    czk_post_vanilla *v = NULL;
    czk_err err;
    czk_assert_ok(czk_post_vanilla_parse(&v, b.p, b.n, &s.tree, 10, &err), &err);
    check_parsed(&s, v, 42);
    czk_post_vanilla_free(v);
    /* any count when 0 is asked for */
    czk_assert_ok(czk_post_vanilla_parse(&v, b.p, b.n, &s.tree, 0, &err), &err);
    assert_int_equal(v->challenges, 10);
    czk_post_vanilla_free(v);
    free(b.p);
    nt_free(&s.nt);
}

static void test_variants(void **state) {
    (void)state;
    roundtrip(8, 0, 0, 64);   /* Single, the 2KiB tree */
    roundtrip(8, 8, 0, 512);  /* Sub */
    roundtrip(8, 8, 2, 1024); /* Top */
    roundtrip(8, 4, 2, 512);  /* upstream's 8-4-2 test tree */
}

static void test_winning_forms(void **state) {
    (void)state;
    sector s;
    make_sector(&s, 8, 0, 0, 64, 66, 3);
    czk_err err;
    for (unsigned groups = 1; groups <= 66; groups += 65) {
        vb b = write_blob(&s, 5, groups);
        czk_post_vanilla *v = NULL;
        czk_assert_ok(czk_post_vanilla_parse(&v, b.p, b.n, &s.tree, 66, &err), &err);
        check_parsed(&s, v, 5);
        czk_post_vanilla_free(v);
        free(b.p);
    }
    nt_free(&s.nt);
}

/* spec §3: a 32GiB (8-8-0) inclusion proof is 2,484 B and a Window sector 24,960 B. */
static void test_32gib_sizes(void **state) {
    (void)state;
    czk_por_tree t;
    czk_err err;
    czk_assert_ok(czk_por_tree_for_leaves(&t, CZK_POR_POSEIDON, 1ull << 30, 8, 8, 0, &err), &err);
    uint32_t pos[10] = {1, 2, 3, 4, 5, 6, 7, 0, 1, 2};
    uint8_t sib[32 * 70], leaf[32], root[32];
    for (int i = 0; i < 70; i++) {
        memset(sib + 32 * i, i + 1, 32);
        sib[32 * i + 31] = 0;
    }
    memset(leaf, 0x0a, 32);
    memset(root, 0x0b, 32);
    vb one = {0};
    vb_merkle(&one, &t, pos, sib, root, leaf);
    assert_int_equal(one.n, 2484);
    vb b = {0};
    vb_u64(&b, 1);
    vb_put(&b, root, 32);
    vb_u64(&b, 1);
    vb_u64(&b, 10);
    for (int j = 0; j < 10; j++)
        vb_put(&b, one.p, one.n);
    vb_put(&b, root, 32);
    vb_put(&b, root, 32);
    assert_int_equal(b.n, 24960);
    czk_post_vanilla *v = NULL;
    czk_assert_ok(czk_post_vanilla_parse(&v, b.p, b.n, &t, 10, &err), &err);
    assert_int_equal(v->paths[9].positions[8], 1);
    assert_int_equal(v->paths[9].positions[9], 2);
    assert_int_equal(v->paths[3].siblings[32 * 69], 70);
    czk_post_vanilla_free(v);
    free(one.p);
    free(b.p);
}

static void expect_fail(const vb *b, const czk_por_tree *t, unsigned ch, czk_status code,
                        const char *msg) {
    czk_post_vanilla *v = NULL;
    czk_err err;
    czk_status st = czk_post_vanilla_parse(&v, b->p, b->n, t, ch, &err);
    if (st != code)
        fail_msg("expected %s, got %s: %s", czk_status_name(code), czk_status_name(st), err.msg);
    if (!strstr(err.msg, msg)) fail_msg("'%s' does not contain '%s'", err.msg, msg);
    assert_null(v);
}

/* Offset of challenge j's MerkleProof in a 1-group Single blob of the 2KiB tree. */
static size_t proof_off(unsigned j) {
    /* Single: tag 4 + root 32 + leaf 32 + path (8 + 2·(8 + 7·32 + 8)) = 556 */
    return 8 + 32 + 8 + 8 + 556 * (size_t)j;
}

static void test_refusals(void **state) {
    (void)state;
    sector s;
    make_sector(&s, 8, 0, 0, 64, 10, 9);
    vb b = write_blob(&s, 7, 1);
    assert_int_equal(b.n, proof_off(10) + 64);
    czk_post_vanilla *v = NULL;
    czk_err err;

    /* every cut fails, naming the sector once its id is read */
    for (size_t cut = 0; cut < b.n; cut++) {
        czk_status st = czk_post_vanilla_parse(&v, b.p, cut, &s.tree, 10, &err);
        if (st != CZK_ERR_TRUNCATED && st != CZK_ERR_FORMAT)
            fail_msg("cut %zu: %s: %s", cut, czk_status_name(st), err.msg);
        assert_non_null(
            strstr(err.msg, cut < 8 ? "PoSt vanilla proof" : "PoSt vanilla proof of sector 7"));
        assert_null(v);
    }
    vb c = {0};
    /* a cut inside challenge 3 names it */
    c.p = b.p;
    c.n = proof_off(3) + 4 + 64 + 8 + 8 + 224 + 4; /* half of path[0].index */
    expect_fail(&c, &s.tree, 10, CZK_ERR_TRUNCATED,
                "of sector 7: challenge 3: bincode path[0].index: needs 8 bytes");

    vb x = {0};
#define COPY()                                                                                     \
    do {                                                                                           \
        x.n = 0;                                                                                   \
        vb_put(&x, b.p, b.n);                                                                      \
    } while (0)
    /* another variant: a Sub tag for the 8-0-0 tree */
    COPY();
    x.p[proof_off(3)] = 1;
    expect_fail(&x, &s.tree, 10, CZK_ERR_MISMATCH,
                "of sector 7: challenge 3: a Sub proof, the 8-0-0 tree has Single proofs");
    COPY();
    x.p[proof_off(0)] = 5;
    expect_fail(&x, &s.tree, 10, CZK_ERR_FORMAT, "challenge 0: proof variant 5");
    /* path[1].index of challenge 3 is 9 */
    size_t path = proof_off(3) + 4 + 64;
    COPY();
    x.p[path + 8 + 240 + 8 + 224] = 9;
    expect_fail(&x, &s.tree, 10, CZK_ERR_FORMAT,
                "PoSt vanilla proof of sector 7: challenge 3: path[1].index is 9, the arity is 8");
    /* 6 hashes at path[0] of challenge 2 */
    COPY();
    x.p[proof_off(2) + 4 + 64 + 8] = 6;
    expect_fail(&x, &s.tree, 10, CZK_ERR_MISMATCH,
                "challenge 2: path[0] has 6 hashes, the arity is 8");
    /* 3 path elements */
    COPY();
    x.p[proof_off(1) + 4 + 64] = 3;
    expect_fail(&x, &s.tree, 10, CZK_ERR_MISMATCH,
                "challenge 1: path has 3 elements, the tree has 2 levels of 8");
    /* a sibling ≥ r */
    COPY();
    memset(x.p + path + 8 + 8 + 32 * 4, 0xff, 32);
    expect_fail(&x, &s.tree, 10, CZK_ERR_FR_RANGE,
                "challenge 3: path[0].hashes[4] is not a canonical Fr");
    /* the leaf ≥ r */
    COPY();
    memset(x.p + proof_off(4) + 4 + 32, 0xff, 32);
    expect_fail(&x, &s.tree, 10, CZK_ERR_FR_RANGE, "challenge 4: leaf is not a canonical Fr");
    /* comm_c ≥ r */
    COPY();
    memset(x.p + proof_off(10), 0xff, 32);
    expect_fail(&x, &s.tree, 10, CZK_ERR_FR_RANGE,
                "of sector 7: sectors[0].comm_c is not a canonical Fr");
    /* a byte after the end */
    COPY();
    vb_put(&x, "", 1);
    expect_fail(&x, &s.tree, 10, CZK_ERR_FORMAT,
                "of sector 7: bincode FallbackPoStSectorProof: 1 bytes after the end");
    /* another challenge count */
    expect_fail(&b, &s.tree, 11, CZK_ERR_MISMATCH,
                "sector 7: 10 inclusion proofs, the circuit challenges each sector 11 times");
    /* an absurd inclusion_proofs length */
    COPY();
    x.p[48 + 7] = 0x40;
    expect_fail(&x, &s.tree, 10, CZK_ERR_FORMAT, "sectors[0].inclusion_proofs: length");
    /* the blob checked against another tree (the Sub tree of 32GiB) */
    czk_por_tree t32;
    czk_assert_ok(czk_por_tree_for_leaves(&t32, CZK_POR_POSEIDON, 1ull << 30, 8, 8, 0, &err), &err);
    expect_fail(&b, &t32, 10, CZK_ERR_MISMATCH, "a Single proof, the 8-8-0 tree has Sub proofs");
    free(x.p);
    free(b.p);

    /* two SectorProofs that disagree on comm_r_last */
    sector w;
    make_sector(&w, 8, 0, 0, 64, 66, 4);
    vb g = write_blob(&w, 8, 66);
    /* the last SectorProof's comm_r_last is the blob's last 32 bytes */
    g.p[g.n - 32] ^= 1;
    expect_fail(&g, &w.tree, 66, CZK_ERR_MISMATCH,
                "sector 8: sectors[65] has another comm_r_last than sectors[0]");
    free(g.p);
    nt_free(&w.nt);
    nt_free(&s.nt);
#undef COPY
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_winning_forms),
        cmocka_unit_test(test_32gib_sizes),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
