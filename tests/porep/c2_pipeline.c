/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 600 */
/*
 * czk_porep_c2_prove_ex's pipeline (witness of partition k + 1 made while
 * partition k is on the device) and czk_porep_c2_load, without the minutes
 * a 2KiB Groth16 setup and CPU proof take: the test proves with the toxic
 * waste. Its "trapdoor" backend knows τ, α, β, δ and computes each MSM sum
 * as one multiple of the generator: with u_j(τ) = Σ_k A[k][j]·L_k(τ) (the
 * Lagrange basis in closed form, as tests/groth16/prove.c; v, w from B, C)
 * and a(τ) = Σ_j z_j·u_j(τ), a = a(τ)·G1, b1, b2 = b(τ)·G1, G2,
 * h = (a(τ)b(τ) − c(τ))/δ·G1 and l = (β·a_aux(τ) + α·b_aux(τ) +
 * c_aux(τ))/δ·G1 over the aux columns only. The keys are only the vk and ic
 * made from the same toxic waste, with the query vectors' lengths and no
 * vectors (as after czk_porep_c2_load dropped them), so the proofs verify
 * against them only if the witnesses are right and land in the right
 * partition. On a non-interactive 2KiB C1 (13 partitions):
 *   - the pipelined call (2 and 3 witness buffers) and the serial one (1)
 *     give the same bytes for fixed r, s, every proof verified by the call
 *     and again by czk_porep_c2_verify; partition 0 and 12 equal czk_prove
 *     on a malloc'ed witness (the path before the pipeline);
 *   - with a backend offering host_alloc, every witness the device part sees
 *     lies in one of its blocks, 2 blocks serve the 13 partitions, all are
 *     freed with their sizes;
 *   - the partition reports come in order, with the witness times;
 *   - a device failure at partition 5 fails the call naming it, with the
 *     witness thread stopped and every buffer freed;
 *   - a backend that fails every proof (a wrong sum) is refused before
 *     anything is written.
 * czk_porep_c2_load: a backend reporting h, l, a, b_g1 droppable gets those
 * host vectors freed (NULL, lengths, vk and ic kept, czk_params_free fine),
 * one with no room (CZK_ERR_NOMEM) and one without load() keep everything,
 * a device fault is returned with nothing freed.
 */
#include "../groth16/testkeys.h"
#include "host_blocks.h"

#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/seal.h"
#include "sector.h"

#include <pthread.h>

/* ---- the trapdoor: sums from the toxic waste ---- */

typedef struct trap {
    const czk_shape *shape;
    czk_toxic tx;
    czk_fr *uvw[3]; /* u_j(τ), v_j(τ), w_j(τ) for every column j of [inputs | aux] */
    pthread_mutex_t mu;
    bool offer_alloc; /* host_alloc offered: the witnesses must lie in hb's blocks */
    host_blocks hb;
    int foreign, devices, fail_at, corrupt;
} trap;

static trap g_trap;

static void trap_init(trap *t, const czk_shape *s, uint64_t seed) {
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    hb_init(&t->hb);
    t->shape = s;
    t->fail_at = -1;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_err err;
    czk_assert_ok(czk_toxic_random(&t->tx, &rng, &err), &err);
    uint64_t n = s->num_constraints;
    unsigned lg = czk_domain_log(n);
    uint64_t N = 1ull << lg;
    czk_fr *lk = malloc(n * sizeof *lk), *den = malloc(n * sizeof *den);
    assert_true(lk && den);
    /* L_k(τ) = ω^k·(τ^N − 1)/(N·(τ − ω^k)) */
    czk_fr om, wk = czk_fr_one, zt, nf, c;
    czk_assert_ok(czk_fr_root_of_unity(&om, lg, &err), &err);
    czk_fr_pow_u64(&zt, &t->tx.tau, N);
    czk_fr_sub(&zt, &zt, &czk_fr_one);
    czk_fr_from_u64(&nf, N);
    for (uint64_t k = 0; k < n; k++) {
        czk_fr_sub(&den[k], &t->tx.tau, &wk);
        czk_fr_mul(&den[k], &den[k], &nf);
        lk[k] = wk;
        czk_fr_mul(&wk, &wk, &om);
    }
    czk_assert_ok(czk_fr_batch_inv(den, den, n, NULL, &err), &err);
    for (uint64_t k = 0; k < n; k++) {
        czk_fr_mul(&c, &lk[k], &zt);
        czk_fr_mul(&lk[k], &c, &den[k]);
    }
    /* every column's polynomial at τ, by rows */
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    for (int m = 0; m < 3; m++) {
        t->uvw[m] = calloc(nv, sizeof(czk_fr));
        assert_non_null(t->uvw[m]);
        const czk_csr *x = &s->m[m];
        for (uint64_t k = 0; k < n; k++)
            for (uint64_t q = x->row_ptr[k]; q < x->row_ptr[k + 1]; q++) {
                czk_fr_mul(&c, &s->coeffs[x->coeff[q]], &lk[k]);
                czk_fr_add(&t->uvw[m][x->col[q]], &t->uvw[m][x->col[q]], &c);
            }
    }
    free(lk);
    free(den);
}

static void trap_free(trap *t) {
    for (int m = 0; m < 3; m++)
        free(t->uvw[m]);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->hb.mu);
}

static void g1_of(czk_g1 *out, const czk_fr *k) {
    czk_g1_mul(out, blst_p1_generator(), k);
}

/* The keys: vk and ic from the toxic waste, the query vectors' lengths, no vectors. */
static czk_params *trap_params(const trap *t) {
    const czk_shape *s = t->shape;
    czk_params *p = calloc(1, sizeof *p);
    assert_non_null(p);
    const czk_toxic *x = &t->tx;
    tk_g1(&p->vk.alpha_g1, &x->alpha);
    tk_g1(&p->vk.beta_g1, &x->beta);
    tk_g2(&p->vk.beta_g2, &x->beta);
    tk_g2(&p->vk.gamma_g2, &x->gamma);
    tk_g1(&p->vk.delta_g1, &x->delta);
    tk_g2(&p->vk.delta_g2, &x->delta);
    p->vk.ic_len = s->num_inputs;
    p->vk.ic = czk_g16_alloc(s->num_inputs * sizeof *p->vk.ic);
    assert_non_null(p->vk.ic);
    czk_fr gi, c;
    czk_fr_inv(&gi, &x->gamma);
    for (uint32_t i = 0; i < s->num_inputs; i++) { /* (β·u_i + α·v_i + w_i)/γ */
        czk_fr_mul(&c, &x->beta, &t->uvw[0][i]);
        czk_fr e;
        czk_fr_mul(&e, &x->alpha, &t->uvw[1][i]);
        czk_fr_add(&c, &c, &e);
        czk_fr_add(&c, &c, &t->uvw[2][i]);
        czk_fr_mul(&c, &c, &gi);
        tk_g1(&p->vk.ic[i], &c);
    }
    p->h_len = (uint32_t)((1ull << czk_domain_log(s->num_constraints)) - 1);
    p->l_len = s->num_aux;
    p->a_len = s->num_inputs + (uint32_t)s->a_aux.popcount;
    p->b_g1_len = p->b_g2_len = (uint32_t)(s->b_input.popcount + s->b_aux.popcount);
    return p;
}

static czk_status trap_sums_one(trap *t, const czk_witness *w, czk_msm_sums *out, czk_err *err) {
    (void)err;
    const czk_shape *s = t->shape;
    /* ev = Σ over every column, aux = Σ over the aux columns (most values are 0 or 1) */
    czk_fr ev[3], aux[3], c;
    for (int m = 0; m < 3; m++) {
        czk_fr acc = czk_fr_zero;
        for (uint32_t j = 0; j < s->num_inputs + s->num_aux; j++) {
            const czk_fr *z = j < s->num_inputs ? &w->inputs[j] : &w->aux[j - s->num_inputs];
            if (j == s->num_inputs) {
                ev[m] = acc; /* the inputs' part, for now */
                acc = czk_fr_zero;
            }
            if (czk_fr_is_zero(z)) continue;
            if (czk_fr_is_one(z)) {
                czk_fr_add(&acc, &acc, &t->uvw[m][j]);
            } else {
                czk_fr_mul(&c, z, &t->uvw[m][j]);
                czk_fr_add(&acc, &acc, &c);
            }
        }
        aux[m] = acc;
        czk_fr_add(&ev[m], &ev[m], &acc);
    }
    const czk_toxic *x = &t->tx;
    czk_fr di, hs, ls, e;
    czk_fr_inv(&di, &x->delta);
    czk_fr_mul(&hs, &ev[0], &ev[1]); /* h: (a·b − c)(τ)/δ */
    czk_fr_sub(&hs, &hs, &ev[2]);
    czk_fr_mul(&hs, &hs, &di);
    czk_fr_mul(&ls, &x->beta, &aux[0]); /* l: (β·a_aux + α·b_aux + c_aux)/δ */
    czk_fr_mul(&e, &x->alpha, &aux[1]);
    czk_fr_add(&ls, &ls, &e);
    czk_fr_add(&ls, &ls, &aux[2]);
    czk_fr_mul(&ls, &ls, &di);
    if (t->corrupt) czk_fr_add(&ls, &ls, &czk_fr_one);
    g1_of(&out->h, &hs);
    g1_of(&out->l, &ls);
    g1_of(&out->a, &ev[0]);
    g1_of(&out->b1, &ev[1]);
    czk_g2_mul(&out->b2, blst_p2_generator(), &ev[1]);
    return CZK_OK;
}

static czk_status trap_sums(void *self, const czk_params *p, const czk_shape *s,
                            const czk_witness *w, size_t count, czk_msm_sums *out,
                            czk_prove_timings *tm, czk_err *err) {
    (void)p, (void)s, (void)tm;
    for (size_t k = 0; k < count; k++) {
        czk_status st = trap_sums_one(self, &w[k], &out[k], err);
        if (st) return st;
    }
    return CZK_OK;
}

static czk_status trap_device(void *self, const czk_params *p, const czk_shape *s,
                              const czk_witness *w, const czk_device_lock *lock, czk_msm_sums *out,
                              unsigned *deferred, czk_prove_timings *tm, czk_err *err) {
    (void)p, (void)s, (void)lock, (void)tm;
    trap *t = self;
    *deferred = 0;
    bool mine =
        !t->offer_alloc || (hb_contains(&t->hb, w->inputs, w->num_inputs * sizeof(czk_fr)) &&
                            hb_contains(&t->hb, w->aux, w->num_aux * sizeof(czk_fr)));
    pthread_mutex_lock(&t->mu);
    int nth = t->devices++;
    if (!mine) t->foreign++;
    pthread_mutex_unlock(&t->mu);
    if (nth == t->fail_at) return czk_errf(err, CZK_ERR_DEVICE, "trapdoor: device fault");
    return trap_sums_one(t, w, out, err);
}

static void *trap_alloc(void *self, size_t bytes) {
    return hb_alloc(&((trap *)self)->hb, bytes);
}

static void trap_hfree(void *self, void *p, size_t bytes) {
    hb_free(&((trap *)self)->hb, p, bytes);
}

static const czk_backend_ops TRAP_OPS = {"trapdoor", trap_sums, NULL, trap_device, NULL,
                                         NULL,       NULL,      NULL, NULL};
static const czk_backend_ops TRAP_PINNED_OPS = {
    "trapdoor", trap_sums, NULL, trap_device, NULL, NULL, NULL, trap_alloc, trap_hfree};

/* ---- the fixture: a non-interactive 2KiB C1 (13 partitions), its shape, the keys ---- */

static struct {
    czk_c1 *c1;
    czk_shape *shape;
    czk_params *params;
    czk_pvk *pvk;
    czk_porep_graph *graph;
    czk_fr r[16], s[16];
} g;

static int group_setup(void **state) {
    (void)state;
    czk_test_sector ts = {.registered_proof =
                              15, /* NI StackedDrg2KiBV1_2_Feat_NonInteractivePoRep */
                          .sector_num = 3,
                          .ticket = 7,
                          .seed = 9,
                          .data_seed = 21};
    czk_err err;
    czk_assert_ok(czk_test_seal(&g.c1, &ts, NULL, &err), &err);
    assert_int_equal(g.c1->num_partitions, 13);
    czk_porep_proof pr;
    czk_assert_ok(czk_porep_proof_lookup(g.c1->registered_proof, &pr, &err), &err);
    czk_assert_ok(czk_porep_shape_load(&g.shape, NULL, pr.shape, false, &err), &err);
    trap_init(&g_trap, g.shape, 77);
    g.params = trap_params(&g_trap);
    g.pvk = calloc(1, sizeof *g.pvk);
    assert_non_null(g.pvk);
    czk_assert_ok(czk_pvk_prepare(g.pvk, &g.params->vk, &err), &err);
    czk_assert_ok(czk_c1_graph(&g.graph, g.c1, NULL, &err), &err);
    for (int k = 0; k < 16; k++) {
        czk_fr_from_u64(&g.r[k], 1000 + (uint64_t)k);
        czk_fr_from_u64(&g.s[k], 2000 + (uint64_t)k);
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    czk_porep_graph_destroy(g.graph);
    czk_pvk_free(g.pvk);
    free(g.pvk);
    czk_params_free(g.params);
    trap_free(&g_trap);
    czk_shape_free(g.shape);
    czk_c1_free(g.c1);
    return 0;
}

typedef struct reports {
    uint32_t next, bad_order;
    double witness;
} reports;

static void on_part(void *ctx, const czk_porep_partition_report *r) {
    reports *x = ctx;
    if (r->k != x->next || r->partitions != 13) x->bad_order++;
    x->next = r->k + 1;
    x->witness += r->witness;
}

static czk_status prove(const czk_backend_ops *ops, unsigned witnesses, uint8_t *out, reports *rep,
                        czk_porep_c2_timings *tm, czk_err *err) {
    czk_backend be = {ops, &g_trap};
    czk_porep_c2_opts o = {g.r, g.s, witnesses, rep ? on_part : NULL, rep};
    return czk_porep_c2_prove_ex(out, g.c1, g.c1->replica_id.b, g.graph, g.params, g.pvk, g.shape,
                                 &be, NULL, &o, tm, err);
}

static void test_pipelined_equals_serial(void **state) {
    (void)state;
    static uint8_t serial[13 * CZK_PROOF_BYTES], piped[13 * CZK_PROOF_BYTES];
    czk_err err;
    czk_porep_c2_timings tm;
    memset(&tm, 0, sizeof tm);
    g_trap.offer_alloc = false;
    czk_assert_ok(prove(&TRAP_OPS, 1, serial, NULL, &tm, &err), &err);
    assert_int_equal(tm.witness_buffers, 1);
    assert_int_equal(tm.witness_buffers_pinned, 0);
    uint32_t bad = 0;
    czk_assert_ok(czk_porep_c2_verify(g.c1, g.c1->replica_id.b, g.graph, g.pvk, serial,
                                      sizeof serial, &bad, &err),
                  &err);
    for (unsigned nw = 2; nw <= 3; nw++) {
        memset(piped, 0, sizeof piped);
        reports rep = {0};
        memset(&tm, 0, sizeof tm);
        czk_assert_ok(prove(&TRAP_OPS, nw, piped, &rep, &tm, &err), &err);
        assert_memory_equal(piped, serial, sizeof serial);
        assert_int_equal(rep.next, 13);
        assert_int_equal(rep.bad_order, 0);
        assert_true(rep.witness > 0);
        assert_true(tm.p.witness == rep.witness);
        assert_int_equal(tm.witness_buffers, nw);
    }
    /* the path before the pipeline: czk_prove on a malloc'ed witness, same r and s */
    czk_backend be = {&TRAP_OPS, &g_trap};
    for (uint32_t k = 0; k < 13; k += 12) {
        czk_porep_witness *pw = NULL;
        czk_assert_ok(czk_porep_witness_from_c1(&pw, g.c1, k, &err), &err);
        czk_witness w;
        czk_assert_ok(czk_porep_witness_generate(&w, &pw->config, pw, NULL, &err), &err);
        czk_proof p;
        czk_assert_ok(czk_prove(&be, g.params, g.shape, &w, 1, &g.r[k], &g.s[k], &p, NULL, &err),
                      &err);
        uint8_t enc[CZK_PROOF_BYTES];
        czk_proof_encode(enc, &p);
        assert_memory_equal(enc, serial + k * CZK_PROOF_BYTES, CZK_PROOF_BYTES);
        czk_witness_free(&w);
        czk_porep_witness_free(pw);
    }
    /* random r, s: other bytes, still valid */
    czk_porep_c2_opts o = {NULL, NULL, 2, NULL, NULL};
    assert_int_equal(czk_porep_c2_prove_ex(piped, g.c1, g.c1->replica_id.b, g.graph, g.params,
                                           g.pvk, g.shape, &be, NULL, &o, NULL, &err),
                     CZK_OK);
    assert_memory_not_equal(piped, serial, CZK_PROOF_BYTES);
    czk_assert_ok(czk_porep_c2_verify(g.c1, g.c1->replica_id.b, g.graph, g.pvk, piped, sizeof piped,
                                      &bad, &err),
                  &err);
}

static void test_pinned_buffers(void **state) {
    (void)state;
    static uint8_t a[13 * CZK_PROOF_BYTES], b[13 * CZK_PROOF_BYTES];
    czk_err err;
    g_trap.offer_alloc = false;
    czk_assert_ok(prove(&TRAP_OPS, 1, a, NULL, NULL, &err), &err);
    g_trap.offer_alloc = true;
    g_trap.hb.allocs = g_trap.hb.frees = g_trap.hb.bad_frees = g_trap.foreign = g_trap.devices = 0;
    czk_porep_c2_timings tm;
    memset(&tm, 0, sizeof tm);
    czk_assert_ok(prove(&TRAP_PINNED_OPS, 2, b, NULL, &tm, &err), &err);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(g_trap.devices, 13);
    assert_int_equal(g_trap.foreign, 0);   /* every witness in the backend's memory */
    assert_int_equal(g_trap.hb.allocs, 2); /* two buffers for 13 partitions */
    size_t want = ((size_t)g.shape->num_inputs + g.shape->num_aux) * sizeof(czk_fr);
    assert_int_equal(g_trap.hb.bytes[0], want);
    assert_int_equal(g_trap.hb.bytes[1], want);
    assert_int_equal(g_trap.hb.frees, 2);
    assert_int_equal(g_trap.hb.bad_frees, 0);
    assert_int_equal(tm.witness_buffers_pinned, 2);
    g_trap.offer_alloc = false;
}

static void test_failures(void **state) {
    (void)state;
    static uint8_t out[13 * CZK_PROOF_BYTES];
    czk_err err;
    /* a device fault at partition 5: named, the witness thread stopped, buffers freed */
    g_trap.offer_alloc = true;
    g_trap.hb.allocs = g_trap.hb.frees = g_trap.hb.bad_frees = g_trap.devices = 0;
    g_trap.fail_at = 5;
    assert_int_equal(prove(&TRAP_PINNED_OPS, 2, out, NULL, NULL, &err), CZK_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "partition 5"));
    assert_non_null(strstr(err.msg, "trapdoor: device fault"));
    assert_int_equal(g_trap.devices, 6);
    assert_int_equal(g_trap.hb.frees, g_trap.hb.allocs);
    assert_int_equal(g_trap.hb.bad_frees, 0);
    g_trap.fail_at = -1;
    g_trap.offer_alloc = false;
    /* wrong sums: the first proof does not verify, nothing is written */
    g_trap.corrupt = 1;
    memset(out, 0xab, sizeof out);
    assert_int_equal(prove(&TRAP_OPS, 2, out, NULL, NULL, &err), CZK_ERR_VERIFY);
    assert_non_null(strstr(err.msg, "partition 0: the new proof does not verify"));
    for (size_t i = 0; i < sizeof out; i++)
        assert_int_equal(out[i], 0xab);
    g_trap.corrupt = 0;
    /* too many buffers */
    assert_int_equal(prove(&TRAP_OPS, 9, out, NULL, NULL, &err), CZK_ERR_INVALID_ARG);
}

/* ---- czk_porep_c2_load ---- */

typedef struct load_be {
    unsigned drop;
    czk_status st;
    int loads;
} load_be;

static czk_status lb_load(void *self, const czk_params *p, const czk_shape *s, unsigned *drop,
                          uint64_t *bytes, czk_err *err) {
    (void)p, (void)s;
    load_be *b = self;
    b->loads++;
    *drop = b->st ? 0 : b->drop;
    *bytes = b->st ? 0 : 12345;
    return b->st ? czk_errf(err, b->st, "fake load: %s", czk_status_name(b->st)) : CZK_OK;
}

static const czk_backend_ops LOAD_OPS = {"load", trap_sums, NULL, trap_device, lb_load,
                                         NULL,   NULL,      NULL, NULL};

static czk_params *small_params(void) {
    czk_params *p = tk_random_params(5, 3, 15, 20, 10, 8);
    assert_non_null(p->h);
    assert_non_null(p->b_g2);
    return p;
}

static void test_load_drops(void **state) {
    (void)state;
    czk_err err;
    czk_porep_c2_load_info li;
    /* h, l, a, b_g1 droppable; b_g2 not */
    czk_params *p = small_params();
    czk_g1_affine ic0 = p->vk.ic[0], alpha = p->vk.alpha_g1;
    czk_g2_affine *b2 = p->b_g2;
    load_be lb = {CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1, CZK_OK, 0};
    czk_backend be = {&LOAD_OPS, &lb};
    czk_assert_ok(czk_porep_c2_load(&be, p, g.shape, &li, &err), &err);
    assert_int_equal(lb.loads, 1);
    assert_true(li.loaded);
    assert_false(li.no_room);
    assert_int_equal(li.device_bytes, 12345);
    assert_int_equal(li.dropped, CZK_SRS_H | CZK_SRS_L | CZK_SRS_A | CZK_SRS_B_G1);
    assert_int_equal(li.freed_bytes, 96ull * (15 + 20 + 10 + 8));
    assert_false(li.shape_dropped); /* not a CUDA backend: the matrices stay */
    assert_non_null(g.shape->m[0].row_ptr);
    assert_null(p->h);
    assert_null(p->l);
    assert_null(p->a);
    assert_null(p->b_g1);
    assert_ptr_equal(p->b_g2, b2);
    assert_int_equal(p->h_len, 15);
    assert_int_equal(p->l_len, 20);
    assert_int_equal(p->vk.ic_len, 3);
    assert_memory_equal(&p->vk.ic[0], &ic0, sizeof ic0);
    assert_memory_equal(&p->vk.alpha_g1, &alpha, sizeof alpha);
    czk_params_free(p); /* NULL vectors are fine */
    /* no room on the device: everything stays, not an error */
    p = small_params();
    lb = (load_be){CZK_SRS_H, CZK_ERR_NOMEM, 0};
    czk_assert_ok(czk_porep_c2_load(&be, p, g.shape, &li, &err), &err);
    assert_true(li.no_room);
    assert_false(li.loaded);
    assert_int_equal(li.dropped, 0);
    assert_non_null(p->h);
    /* a device fault: returned, nothing freed */
    lb = (load_be){CZK_SRS_H, CZK_ERR_DEVICE, 0};
    assert_int_equal(czk_porep_c2_load(&be, p, g.shape, &li, &err), CZK_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "fake load"));
    assert_non_null(p->h);
    /* no load(): nothing to do */
    czk_backend plain = {&TRAP_OPS, &g_trap};
    czk_assert_ok(czk_porep_c2_load(&plain, p, g.shape, &li, &err), &err);
    assert_false(li.loaded);
    assert_non_null(p->h);
    czk_params_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipelined_equals_serial),
        cmocka_unit_test(test_pinned_buffers),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_load_drops),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
