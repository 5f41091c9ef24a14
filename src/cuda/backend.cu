/*
 * The GPU Groth16 backend: czk_backend_ops (include/czk/groth16.h) on the
 * CUDA ABI (include/czk/cuda.h). Per circuit: witness upload (its packed
 * form where the caller made one, expanded on the device: witness.cu),
 * SpMV (device or host), H (czk_cuda_h), the five MSMs on the device (G2
 * included); the common code randomizes and encodes (czk_prove,
 * czk_prove_finalize), so the proof bytes equal the CPU backend's
 * (src/groth16/prove.c) for the same inputs. The MSM sums are the same
 * group elements whatever the algorithm,
 * and the scalars fed to each MSM are the CPU backend's: h's first N − 1
 * coefficients, aux for l, inputs ‖ A-dense aux for a, B-dense inputs ‖
 * B-dense aux for b_g1 and b_g2 (bellperson prover/native.rs).
 *
 * Residency and streaming are described in include/czk/cuda.h; encoded
 * parameters (CZK_PARAMS_ENCODED) are uploaded as read and decoded on the
 * device vector by vector (decode.cu), else decoded on the host before
 * they are pinned or streamed. A circuit's upload,
 * SpMV, H and gathers run under the backend's mutex on the main context (the
 * gathers beside H on its second stream where the index lists are on the
 * device; CZK_CUDA_GATHER_EARLY=0: after H); the
 * engine's device lock, where given, is taken outside it. Its MSMs run in
 * the MSM stage (one circuit at a time). By default (CZK_CUDA_OVERLAP=0, read
 * at creation, turns it off: on the H200 at 32GiB overlap gave 1.20 s per
 * partition in bench_porep32g against 1.35 s and 12.18 s/proof in czk bench
 * against 13.48 s, bench/GPU.md ninth run), with resident keys and room for
 * the concurrent MSMs, they run outside the mutex and the device lock, on the extra
 * contexts (MSM H on its own; CZK_CUDA_MSM_H_PRIORITY=1 gives its streams
 * the device's highest priority, off by default: bench/GPU.md, eleventh
 * run), with the buffers the circuit filled swapped
 * for a spare set, so that the next circuit's upload, SpMV and H (another
 * GPU worker of the engine) run beside them: two circuits in flight per
 * device, ≈ 20 GB more device memory at 32GiB. Otherwise the MSMs run
 * inside the lock, concurrently on the main and extra contexts. Dense witnesses
 * (most L scalars neither 0 nor 1, as in PoSt; learnt from the last L MSM
 * of those keys) run the stage's five MSMs one after another.
 *
 * Host-to-device copies (witness, host a, b, c, keys, shape) go through
 * upload_fast (staging.cu): directly from page-locked memory (host_alloc'ed
 * witnesses, pinned keys), else through the main context's page-locked
 * staging ring, the host-side copies on the backend's own copy pool
 * (COPY_THREADS threads, or CZK_CUDA_COPY_THREADS; not the caller's pool,
 * so that they never wait behind its loops).
 * The four extra contexts run the witness MSMs (l, a, b_g1, b_g2) with a
 * memory cap (MSM_CAP points per Pippenger piece, msm.cuh), so that the
 * concurrent MSMs' temporaries are bounded whatever the witness holds.
 *
 * Cancellation (czk_device_lock.cancel, the engine's job flag): checked once
 * the device lock is held and after each phase — witness upload, SpMV, H,
 * the gathers, each MSM of the serial path (the parallel MSMs run together:
 * before they start) — so a cancelled job leaves the device within one
 * phase; what it computed is discarded.
 */
#include "ctx.cuh"

#include "czk/groth16.h"
#include "czk/msm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

using namespace czkg;

namespace {

/* out[i] = in[idx[i]], i < n (grid-stride: any grid covers n) */
__global__ void gather_kernel(fr *out, const fr *in, const uint32_t *idx, uint32_t n) {
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = in[idx[i]];
}

double now_s() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

enum { V_H, V_L, V_A, V_B1, V_B2, NVEC };
const char *const VEC_NAME[NVEC] = {"h", "l", "a", "b_g1", "b_g2"};
const unsigned VEC_BIT[NVEC] = {CZK_SRS_H, CZK_SRS_L, CZK_SRS_A, CZK_SRS_B_G1, CZK_SRS_B_G2};

struct vecs {
    const void *p[NVEC];
    uint32_t n[NVEC];
};

/* The bases of the five MSMs: with a Lagrange form attached (groth16.h, czk_params_lagrange),
 * its h (2^log_n points) and l stand for the parameters' h and l. */
vecs params_vecs(const czk_params *p) {
    vecs v;
    v.p[V_H] = p->h, v.p[V_L] = p->l, v.p[V_A] = p->a, v.p[V_B1] = p->b_g1, v.p[V_B2] = p->b_g2;
    v.n[V_H] = p->h_len, v.n[V_L] = p->l_len, v.n[V_A] = p->a_len, v.n[V_B1] = p->b_g1_len;
    v.n[V_B2] = p->b_g2_len;
    if (const czk_params_lagrange *lf = p->lagrange) {
        v.p[V_H] = lf->h, v.n[V_H] = (uint32_t)1 << lf->log_n;
        v.p[V_L] = lf->l, v.n[V_L] = lf->num_aux;
    }
    return v;
}

/* Whether vector k of p is held in the file's encoding (a Lagrange form's never is). */
bool vec_encoded(const czk_params *p, int k) {
    return p->encoded && !(p->lagrange && (k == V_H || k == V_L));
}

size_t vec_elem(int k) {
    return k == V_B2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
}

/* One parameter set that load() saw. */
struct resident {
    resident *next;
    const czk_params *params;
    const czk_shape *shape;
    vecs host;            /* host vectors and lengths at load time */
    void *dev[NVEC];      /* device copies (all or none) */
    bool params_on_dev;   /* dev[] filled */
    bool pinned[NVEC];    /* host vector registered here */
    bool pinned_by_other; /* some were registered already (another device's backend) */
    czk_cuda_shape *dshape;
    uint32_t *a_idx, *b_idx; /* device index lists into z (with the vectors) */
    uint64_t device_bytes;
    unsigned users;     /* MSM stages running on it outside mu (drop waits for 0) */
    bool witness_dense; /* the last L MSM found most scalars neither 0 nor 1 (PoSt): the five
                           MSMs of the overlapped stage then run one after another */
};

enum { NAUX = 4 };
constexpr size_t MSM_CAP = (size_t)1 << 24; /* points per Pippenger piece on the extra contexts */
constexpr unsigned COPY_THREADS = 4;        /* host side of staged uploads */

/* The buffers one circuit's MSMs read: the witness z, a ‖ b ‖ c (h in a after H), the gathered
 * A and B scalars. */
struct stage_bufs {
    void *z, *abc, *sc, *sc2;
    size_t z_cap, abc_cap, sc_cap, sc2_cap;
};

struct cuda_be {
    czk_cuda_ctx *ctx;
    czk_pool *pool;
    uint64_t budget, used;
    size_t chunk;    /* 0: default */
    bool serial_msm; /* the five MSMs one after another (CZK_CUDA_SERIAL_MSM at creation) */
    bool packed;     /* upload a witness's packed form where it has one (off: CZK_CUDA_PACKED=0) */
    bool overlap;    /* the MSM stage outside the device lock (off: CZK_CUDA_OVERLAP=0) */
    bool gather_early; /* the gathers beside H (off: CZK_CUDA_GATHER_EARLY=0) */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a resident's users fell */
    resident *res;
    /* work buffers, grown as needed, used under mu */
    void *z, *abc, *sc, *sc2, *bases, *idx;
    size_t z_cap, abc_cap, sc_cap, sc2_cap, bases_cap, idx_cap;
    /* the other set of z, abc, sc, sc2: the buffers of the MSM stage in flight, swapped with
     * the ones above when a circuit hands its MSMs to the stage (under mu and msm_mu) */
    stage_bufs spare;
    /* the MSM stage: held by whichever circuit runs its MSMs (with or without mu) */
    pthread_mutex_t msm_mu;
    /* more contexts (streams) on the same device, so that the five MSMs of a circuit run
     * at once when the parameters are resident and memory allows; NULL: one after another */
    czk_cuda_ctx *aux[NAUX];
    czk_cuda_ctx *hctx;  /* MSM H of the overlapped stage (no memory cap); NULL: no overlap */
    czk_pool *copy_pool; /* host side of staged uploads (NULL: the calling thread) */
};

/* Appends offset + i for every set bit i < len of b (a word at a time). */
uint32_t append_bits(const czk_bitmap *b, uint32_t len, uint32_t offset, uint32_t *out,
                     uint32_t m) {
    uint64_t bits = b->len < len ? b->len : len;
    for (uint64_t w = 0; w < (bits + 63) / 64; w++) {
        uint64_t x = b->words[w];
        if (w == bits / 64) x &= (1ull << (bits % 64)) - 1; /* the last, partial word */
        while (x) {
            out[m++] = offset + (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(x));
            x &= x - 1;
        }
    }
    return m;
}
/* z-indices of the a query's scalars (inputs ‖ A-dense aux) and of the b queries' (B-dense inputs ‖
 * B-dense aux); out holds num_inputs + num_aux entries. Returns the count. */
uint32_t index_a(const czk_shape *s, uint32_t *out) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->num_inputs; i++)
        out[m++] = i;
    return append_bits(&s->a_aux, s->num_aux, s->num_inputs, out, m);
}
uint32_t index_b(const czk_shape *s, uint32_t *out) {
    uint32_t m = append_bits(&s->b_input, s->num_inputs, 0, out, 0);
    return append_bits(&s->b_aux, s->num_aux, s->num_inputs, out, m);
}

/* Device working memory of one circuit of this shape (see cuda.h). */
uint64_t working_bytes(const czk_shape *s) {
    uint64_t N = 1ull << czk_domain_log(s->num_constraints);
    uint64_t nv = (uint64_t)s->num_inputs + s->num_aux;
    /* + N·32: the NTT's half twist tables, both directions, kept in the context (ntt.cu) */
    return 3 * N * 32 + 2 * nv * 32 + 80 * N + N * 32 + (256ull << 20);
}

/* Device memory free for new allocations on the backend's device (device_free_bytes). */
uint64_t device_avail(cuda_be *be) {
    if (cudaSetDevice(be->ctx->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return device_free_bytes(be->ctx->device);
}

czk_status ensure(cuda_be *be, void **buf, size_t *cap, size_t bytes, const char *what,
                  czk_err *err) {
    if (*cap >= bytes && *buf) return CZK_OK;
    czk_cuda_free(be->ctx, *buf);
    *buf = NULL;
    *cap = 0;
    czk_status st = czk_cuda_alloc(be->ctx, buf, bytes ? bytes : 32, err);
    if (st) return czk_err_wrap(err, "work buffer %s", what);
    *cap = bytes;
    return CZK_OK;
}

/* The loaded entry of params, or NULL. An entry whose recorded host vectors are no longer the
 * params' (the struct was freed and another allocated at its address) does not match. */
resident *find(cuda_be *be, const czk_params *p) {
    vecs v = params_vecs(p);
    for (resident *r = be->res; r; r = r->next) {
        if (r->params != p) continue;
        bool same = true;
        for (int k = 0; k < NVEC; k++)
            same &=
                v.n[k] == r->host.n[k] && (v.p[k] == r->host.p[k] || (!v.p[k] && r->params_on_dev));
        if (same) return r;
    }
    return NULL;
}

void drop(cuda_be *be, resident *r) {
    for (int k = 0; k < NVEC; k++) {
        czk_cuda_free(be->ctx, r->dev[k]);
        if (r->pinned[k]) {
            (void)cudaHostUnregister((void *)r->host.p[k]);
            (void)cudaGetLastError();
        }
    }
    czk_cuda_free(be->ctx, r->a_idx);
    czk_cuda_free(be->ctx, r->b_idx);
    czk_cuda_shape_free(be->ctx, r->dshape);
    be->used -= r->device_bytes < be->used ? r->device_bytes : be->used;
    for (resident **pp = &be->res; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    free(r);
}

/* ---- MSM from resident or streamed bases: one body for G1 and G2 ---- */

struct G1T {
    using P = czk_g1;
    using A = czk_g1_affine;
    static constexpr size_t default_chunk = (size_t)1 << 22;
    static czk_status msm(czk_cuda_ctx *c, P *o, const A *b, const czk_fr *s, size_t n,
                          czk_err *e) {
        return czk_cuda_msm_g1(c, o, b, s, n, e);
    }
    static void add(P *o, const P *x) {
        blst_p1_add_or_double(o, o, x);
    }
};
struct G2T {
    using P = czk_g2;
    using A = czk_g2_affine;
    static constexpr size_t default_chunk = (size_t)1 << 21;
    static czk_status msm(czk_cuda_ctx *c, P *o, const A *b, const czk_fr *s, size_t n,
                          czk_err *e) {
        return czk_cuda_msm_g2(c, o, b, s, n, e);
    }
    static void add(P *o, const P *x) {
        blst_p2_add_or_double(o, o, x);
    }
};

/* out = Σ scalars[i]·bases[i] with scalars on the device; bases on the device (dev) or streamed
 * from host memory in chunks (the sum of the chunks' MSMs). */
template <class G>
czk_status msm_any(cuda_be *be, typename G::P *out, const void *dev, const void *host,
                   const czk_fr *scalars, size_t n, const char *name, czk_err *err) {
    czk_status st;
    if (dev || n == 0) {
        if ((st = G::msm(be->ctx, out, (const typename G::A *)dev, scalars, n, err)))
            return czk_err_wrap(err, "MSM %s (%zu points)", name, n);
        return CZK_OK;
    }
    if (!host)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "MSM %s: the parameter vector is neither on the device nor in host memory",
                        name);
    size_t chunk = be->chunk ? be->chunk : G::default_chunk;
    if (chunk > n) chunk = n;
    if ((st = ensure(be, &be->bases, &be->bases_cap, chunk * sizeof(typename G::A), "bases", err)))
        return czk_err_wrap(err, "MSM %s", name);
    memset(out, 0, sizeof *out); /* infinity */
    const typename G::A *hb = (const typename G::A *)host;
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        typename G::P part;
        if ((st = upload_fast(be->ctx, be->bases, hb + off, m * sizeof *hb, err)) ||
            (st = G::msm(be->ctx, &part, (const typename G::A *)be->bases, scalars + off, m, err)))
            return czk_err_wrap(err, "MSM %s (streamed, points %zu..%zu of %zu)", name, off,
                                off + m, n);
        G::add(out, &part);
    }
    return CZK_OK;
}

/* scalars[k] = z[idx[k]] on the device (sc: A's side, sc2: B's), n of them; idx on the device
 * (didx) or built on the host. With `early` and didx the kernel goes to the main context's second
 * stream after everything queued on its first, one block an SM, and is not waited for (the caller
 * synchronizes stream2). */
czk_status gather(cuda_be *be, const czk_shape *s, const uint32_t *didx, bool a_side, size_t n,
                  czk_err *err, bool early = false) {
    czk_status st;
    void **dst = a_side ? &be->sc : &be->sc2;
    if ((st = ensure(be, dst, a_side ? &be->sc_cap : &be->sc2_cap, n * sizeof(czk_fr), "scalars",
                     err)))
        return st;
    if (n == 0) return CZK_OK;
    if (early && didx) {
        czk_cuda_ctx *c = be->ctx;
        CZK_CU(cudaEventRecord(c->ev_fork, c->stream), "gather: event");
        CZK_CU(cudaStreamWaitEvent(c->stream2, c->ev_fork, 0), "gather: order the streams");
        gather_kernel<<<c->sm_count, 256, 0, c->stream2>>>((fr *)*dst, (const fr *)be->z, didx,
                                                           (uint32_t)n);
        CZK_LAUNCH("gather %s scalars (%zu, beside H)", a_side ? "A" : "B", n);
        return CZK_OK;
    }
    if (!didx) {
        uint32_t *h = (uint32_t *)malloc(((size_t)s->num_inputs + s->num_aux + 1) * 4);
        if (!h) return czk_errf(err, CZK_ERR_NOMEM, "gather: host index list");
        uint32_t m = a_side ? index_a(s, h) : index_b(s, h);
        st = m != n
                 ? czk_errf(err, CZK_ERR_MISMATCH, "gather: %u dense scalars, expected %zu", m, n)
                 : ensure(be, &be->idx, &be->idx_cap, n * 4, "index list", err);
        if (!st) st = upload_fast(be->ctx, be->idx, h, n * 4, err);
        free(h);
        if (st) return st;
        didx = (const uint32_t *)be->idx;
    }
    cudaStream_t strm = be->ctx->stream;
    gather_kernel<<<grid_for(n, 256), 256, 0, strm>>>((fr *)*dst, (const fr *)be->z, didx,
                                                      (uint32_t)n);
    CZK_LAUNCH("gather %s scalars (%zu)", a_side ? "A" : "B", n);
    CZK_CU(cudaStreamSynchronize(strm), "gather: synchronize");
    return CZK_OK;
}

/* One MSM on its own context (a thread of the parallel MSM phase). */
struct msm_job {
    czk_cuda_ctx *ctx;
    bool g2;
    void *out;
    const void *bases;
    const czk_fr *scalars;
    size_t n;
    const char *name;
    double secs;
    czk_status st;
    czk_err err;
    void *scratch; /* dead device memory the MSM may use for its digits (NULL: none) */
    size_t scratch_bytes;
};

void *msm_job_run(void *arg) {
    msm_job *j = (msm_job *)arg;
    double t0 = now_s();
    if (j->scratch) czk_cuda_set_msm_scratch(j->ctx, j->scratch, j->scratch_bytes);
    j->st = j->g2 ? czk_cuda_msm_g2(j->ctx, (czk_g2 *)j->out, (const czk_g2_affine *)j->bases,
                                    j->scalars, j->n, &j->err)
                  : czk_cuda_msm_g1(j->ctx, (czk_g1 *)j->out, (const czk_g1_affine *)j->bases,
                                    j->scalars, j->n, &j->err);
    if (j->scratch) czk_cuda_set_msm_scratch(j->ctx, NULL, 0);
    if (j->st) czk_err_wrap(&j->err, "MSM %s (%zu points)", j->name, j->n);
    j->secs = now_s() - t0;
    return NULL;
}

/* Temporaries of a witness MSM of n points on an extra context (memory cap MSM_CAP, msm.cuh):
 * the index list (4 bytes per point) plus Pippenger over at most MSM_CAP points (about 80 bytes
 * per G1 point, 160 per G2 point). */
uint64_t witness_msm_bytes(uint64_t n, bool g2) {
    uint64_t core = n < MSM_CAP ? n : MSM_CAP;
    return 4 * n + (g2 ? 160 : 80) * core;
}

/* Device memory the five MSMs need at once: the H MSM's dense Pippenger, about 80 bytes per
 * point, the witness MSMs' (witness_msm_bytes) and 512 MiB of margin; see cuda.h. */
uint64_t parallel_need(size_t N, const czk_params *p) {
    return 80ull * N + witness_msm_bytes(p->l_len, false) + witness_msm_bytes(p->a_len, false) +
           witness_msm_bytes(p->b_g1_len, false) + witness_msm_bytes(p->b_g2_len, true) +
           (512ull << 20);
}

/* Whether the five MSMs may run at once: the extra contexts exist and the device has room for
 * all their temporaries (parallel_need). */
bool parallel_ok(cuda_be *be, size_t N, const czk_params *p) {
    for (int k = 0; k < NAUX; k++)
        if (!be->aux[k]) return false;
    if (be->serial_msm) return false;
    return parallel_need(N, p) <= device_avail(be);
}

/*
 * Before the overlapped stage hands this circuit's buffers to its MSMs, the spare set (which
 * the next circuit then fills) is grown to this circuit's sizes, where the device has room for
 * it beside the MSMs' temporaries (parallel_need): so the next circuit of the same kind never
 * fails for lack of device memory for its buffers while these MSMs run. False (this circuit's
 * MSMs then run inside the lock) where there is no room.
 */
bool spare_ready(cuda_be *be, size_t N, const czk_params *p) {
    void **buf[4] = {&be->spare.z, &be->spare.abc, &be->spare.sc, &be->spare.sc2};
    size_t *cap[4] = {&be->spare.z_cap, &be->spare.abc_cap, &be->spare.sc_cap, &be->spare.sc2_cap};
    const size_t want[4] = {be->z_cap, be->abc_cap, be->sc_cap, be->sc2_cap};
    uint64_t more = 0;
    for (int k = 0; k < 4; k++)
        if (*cap[k] < want[k]) more += want[k];
    if (!more) return true;
    if (parallel_need(N, p) + more > device_avail(be)) return false;
    for (int k = 0; k < 4; k++) {
        czk_err e;
        if (*cap[k] < want[k] && ensure(be, buf[k], cap[k], want[k], "spare set", &e)) return false;
    }
    return true;
}

/* A checkpoint between phases: CZK_ERR_CANCELLED when lock's job was cancelled. */
czk_status checkpoint(const czk_device_lock *lock, const char *after, czk_err *err) {
    return czk_device_lock_cancelled(lock)
               ? czk_errf(err, CZK_ERR_CANCELLED, "prove: cancelled after %s", after)
               : CZK_OK;
}

/* The five MSMs of a circuit from resident bases (dv): at once, each on its own context ctxs[k]
 * (its own thread), or with `serial` one after another on ctxs[0] (dense witness scalars, where
 * concurrent full MSMs contend: bench/GPU.md, seventh run). h = a[0 .. hn) (N − 1 coefficients,
 * or N coset values with a Lagrange form), l over z_aux; a is
 * followed by H's dead b and c (2N), which MSM H may overwrite with its digits. */
czk_status five_msms(czk_cuda_ctx *const ctxs[NVEC], bool serial, const void *const dv[NVEC],
                     const czk_params *p, size_t N, size_t hn, czk_fr *a, const czk_fr *z_aux,
                     size_t naux, const czk_fr *sa, const czk_fr *sb, czk_msm_sums *out,
                     czk_prove_timings *t, czk_err *err) {
    czk_cuda_ctx *c[NVEC];
    for (int k = 0; k < NVEC; k++)
        c[k] = serial ? ctxs[0] : ctxs[k];
    msm_job jobs[NVEC] = {
        {c[0], false, &out->h, dv[V_H], a, hn, "h", 0, CZK_OK, {}},
        {c[1], false, &out->l, dv[V_L], z_aux, naux, "l", 0, CZK_OK, {}},
        {c[2], false, &out->a, dv[V_A], sa, p->a_len, "a", 0, CZK_OK, {}},
        {c[3], false, &out->b1, dv[V_B1], sb, p->b_g1_len, "b_g1", 0, CZK_OK, {}},
        {c[4], true, &out->b2, dv[V_B2], sb, p->b_g2_len, "b_g2", 0, CZK_OK, {}},
    }; /* the others: no scratch */
    jobs[0].scratch = a + N;
    jobs[0].scratch_bytes = 2 * N * sizeof(czk_fr);
    pthread_t th[NVEC];
    bool started[NVEC] = {false};
    if (!serial)
        for (int k = 1; k < NVEC; k++)
            started[k] = pthread_create(&th[k], NULL, msm_job_run, &jobs[k]) == 0;
    msm_job_run(&jobs[0]);
    for (int k = 1; k < NVEC; k++)
        if (started[k])
            pthread_join(th[k], NULL);
        else if (serial && jobs[k - 1].st)
            jobs[k].st = CZK_ERR_CANCELLED, jobs[k].err = jobs[k - 1].err; /* not run */
        else
            msm_job_run(&jobs[k]); /* serial, or no thread: run it here */
    double *acc[NVEC] = {&t->msm_h, &t->msm_l, &t->msm_a, &t->msm_b1, &t->msm_b2};
    for (int k = 0; k < NVEC; k++)
        *acc[k] += jobs[k].secs;
    for (int k = 0; k < NVEC; k++)
        if (jobs[k].st) {
            if (err) *err = jobs[k].err;
            return jobs[k].st;
        }
    return CZK_OK;
}

/* The device part of one circuit, entered under be->mu and the device lock (lock: NULL, or the
 * one whose cancel flag the checkpoints read). abc_host: a, b, c of N each computed on the host
 * (when the shape is not resident), else NULL.
 *
 * The MSMs run when the circuit holds the MSM stage (msm_mu: the previous circuit's MSMs have
 * ended). With resident keys, the extra contexts and room for the concurrent MSMs, the stage runs
 * outside mu and the device lock: the circuit hands its buffers to the stage (swapped with the
 * spare set, which the previous stage no longer reads), marks the keys in use, and releases mu
 * and the device lock, so that the next circuit's upload, SpMV and H run beside these MSMs;
 * *released then says so (the caller must not release them again). */
czk_status one_circuit(cuda_be *be, resident *r, const czk_params *p, const czk_shape *s,
                       const czk_witness *w, const czk_fr *abc_host, const czk_device_lock *lock,
                       bool *released, czk_msm_sums *out, czk_prove_timings *t, czk_err *err) {
    czk_cuda_ctx *ctx = be->ctx;
    *released = false;
    CZK_CU(cudaSetDevice(ctx->device), "prove: select device");
    unsigned lg = czk_domain_log(s->num_constraints);
    size_t N = (size_t)1 << lg, ni = s->num_inputs, naux = s->num_aux, nv = ni + naux;
    vecs hv = params_vecs(p);
    /* with a Lagrange form: no c, four transforms, h over the N coset values */
    const bool lagrange = p->lagrange != NULL;
    const size_t hn = lagrange ? N : N - 1;
    czk_status st;
    if ((st = checkpoint(lock, "the wait for the device", err))) return st;
    double t0 = now_s();
    if ((st = ensure(be, &be->z, &be->z_cap, nv * sizeof(czk_fr), "witness", err)) ||
        (st = ensure(be, &be->abc, &be->abc_cap, 3 * N * sizeof(czk_fr), "a, b, c", err)))
        return st;
    /* the packed form, where the witness has one, is copied into a, b, c (not yet written) and
     * expanded into z there (witness.cu) */
    const czk_witness_packed *pk = be->packed && w->packed && w->packed->n == nv ? w->packed : NULL;
    size_t pk_bytes = 0;
    czk_err pk_err;
    if (pk && packed_scratch_bytes(pk, &pk_bytes, &pk_err)) pk = NULL; /* the full witness */
    if (pk && pk_bytes > be->abc_cap &&
        (st = ensure(be, &be->abc, &be->abc_cap, pk_bytes, "a, b, c", err)))
        return st;
    czk_fr *z = (czk_fr *)be->z, *a = (czk_fr *)be->abc, *b = a + N, *c = b + N;
    if (pk && (st = upload_packed(ctx, z, pk, be->abc, be->abc_cap, err)))
        return czk_err_wrap(err, "witness upload (packed)");
    if (!pk && ((st = upload_fast(ctx, z, w->inputs, ni * sizeof(czk_fr), err)) ||
                (naux && (st = upload_fast(ctx, z + ni, w->aux, naux * sizeof(czk_fr), err)))))
        return czk_err_wrap(err, "witness upload");
    if (abc_host && (st = upload_fast(ctx, a, abc_host, 3 * N * sizeof(czk_fr), err)))
        return czk_err_wrap(err, "a, b, c upload");
    double tu = now_s();
    t->upload += tu - t0;
    if ((st = checkpoint(lock, "the witness upload", err))) return st;
    if (!abc_host && (st = czk_cuda_spmv(ctx, r->dshape, z, a, b, lagrange ? NULL : c, N, err)))
        return czk_err_wrap(err, "SpMV");
    double t1 = now_s();
    t->spmv += t1 - tu;
    if ((st = checkpoint(lock, "SpMV", err))) return st;
    /* the gathers read z only: with the index lists on the device (with the keys or with the
     * shape alone) they run beside H on the second stream, one block of 256 an SM (H's pass
     * kernels hold 54-60 registers, four blocks an SM: a gather block takes what room is left,
     * at most one H block's); else after it */
    const bool early = be->gather_early && lg > 0 && r && r->a_idx && r->b_idx;
    if (early && ((st = gather(be, s, r->a_idx, true, p->a_len, err, true)) ||
                  (st = gather(be, s, r->b_idx, false, p->b_g1_len, err, true)))) {
        (void)cudaStreamSynchronize(ctx->stream2); /* nothing left writing sc, sc2 */
        return st;
    }
    if (lg > 0 && (st = czk_cuda_h(ctx, a, b, lagrange ? NULL : c, lg, err))) {
        if (early) (void)cudaStreamSynchronize(ctx->stream2); /* nothing left writing sc, sc2 */
        return czk_err_wrap(err, "H");
    }
    double t2 = now_s();
    t->ntt += t2 - t1;
    if (early) CZK_CU(cudaStreamSynchronize(ctx->stream2), "gathers beside H: synchronize");
    if ((st = checkpoint(lock, "H", err))) return st;
    bool rd = r && r->params_on_dev;
    const void *dv[NVEC] = {0};
    if (rd)
        for (int k = 0; k < NVEC; k++)
            dv[k] = r->dev[k];
    if (!early && ((st = gather(be, s, r ? r->a_idx : NULL, true, p->a_len, err)) ||
                   (st = gather(be, s, r ? r->b_idx : NULL, false, p->b_g1_len, err))))
        return st;
    const czk_fr *sa = (const czk_fr *)be->sc, *sb = (const czk_fr *)be->sc2;
    double t3 = now_s();
    t->spmv += t3 - t2; /* the gathers: compaction of the witness (early: the wait for them) */
    if ((st = checkpoint(lock, "the gathers", err))) return st;

    pthread_mutex_lock(&be->msm_mu); /* the previous circuit's MSMs have ended */
    double t3w = now_s(); /* the MSMs' times start here: a wait for the stage is in none */
    if ((st = checkpoint(lock, "the wait for the MSM stage", err))) {
        pthread_mutex_unlock(&be->msm_mu);
        return st;
    }
    bool par = rd && parallel_ok(be, N, p);
    if (par && be->overlap && be->hctx && spare_ready(be, N, p)) {
        /* hand the buffers to the stage; the spare set (the previous stage's) becomes ours */
        stage_bufs mine = {be->z,     be->abc,     be->sc,     be->sc2,
                           be->z_cap, be->abc_cap, be->sc_cap, be->sc2_cap};
        be->z = be->spare.z, be->abc = be->spare.abc, be->sc = be->spare.sc;
        be->sc2 = be->spare.sc2;
        be->z_cap = be->spare.z_cap, be->abc_cap = be->spare.abc_cap;
        be->sc_cap = be->spare.sc_cap, be->sc2_cap = be->spare.sc2_cap;
        be->spare = mine;
        bool dense = r->witness_dense;
        r->users++;
        pthread_mutex_unlock(&be->mu);
        czk_device_lock_release(lock);
        *released = true;
        czk_cuda_ctx *ctxs[NVEC] = {be->hctx, be->aux[0], be->aux[1], be->aux[2], be->aux[3]};
        st = five_msms(ctxs, dense, dv, p, N, hn, a, z + ni, naux, sa, sb, out, t, err);
        czk_cuda_msm_info li;
        czk_cuda_msm_last(dense ? be->hctx : be->aux[0], &li);
        pthread_mutex_unlock(&be->msm_mu);
        pthread_mutex_lock(&be->mu);
        if (!st && naux && li.sparse) r->witness_dense = li.others * 2 > naux;
        if (!st && naux && !li.sparse && dense) r->witness_dense = true; /* no sample: dense */
        r->users--;
        pthread_cond_broadcast(&be->cv);
        pthread_mutex_unlock(&be->mu);
        return st;
    }
    if (par) {
        czk_cuda_ctx *ctxs[NVEC] = {be->ctx, be->aux[0], be->aux[1], be->aux[2], be->aux[3]};
        st = five_msms(ctxs, false, dv, p, N, hn, a, z + ni, naux, sa, sb, out, t, err);
        pthread_mutex_unlock(&be->msm_mu);
        return st;
    }
    st = CZK_OK;
    double t4 = t3w;
    czk_cuda_set_msm_scratch(ctx, b, 2 * N * sizeof(czk_fr)); /* H's dead b and c: the digits */
    st = msm_any<G1T>(be, &out->h, dv[V_H], hv.p[V_H], a, hn, "h", err);
    czk_cuda_set_msm_scratch(ctx, NULL, 0);
    if (st) goto done;
    t->msm_h += now_s() - t4;
    if ((st = checkpoint(lock, "MSM h", err))) goto done;
    t4 = now_s();
    if ((st = msm_any<G1T>(be, &out->l, dv[V_L], hv.p[V_L], z + ni, naux, "l", err))) goto done;
    t->msm_l += now_s() - t4;
    if ((st = checkpoint(lock, "MSM l", err))) goto done;
    t4 = now_s();
    if ((st = msm_any<G1T>(be, &out->a, dv[V_A], hv.p[V_A], sa, p->a_len, "a", err))) goto done;
    t->msm_a += now_s() - t4;
    if ((st = checkpoint(lock, "MSM a", err))) goto done;
    t4 = now_s();
    if ((st = msm_any<G1T>(be, &out->b1, dv[V_B1], hv.p[V_B1], sb, p->b_g1_len, "b_g1", err)))
        goto done;
    t->msm_b1 += now_s() - t4;
    if ((st = checkpoint(lock, "MSM b_g1", err))) goto done;
    t4 = now_s();
    if ((st = msm_any<G2T>(be, &out->b2, dv[V_B2], hv.p[V_B2], sb, p->b_g2_len, "b_g2", err)))
        goto done;
    t->msm_b2 += now_s() - t4;
done:
    pthread_mutex_unlock(&be->msm_mu);
    return st;
}

struct eval_pad {
    czk_fr *a, *b, *c;
};
void pad_fn(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    eval_pad *j = (eval_pad *)arg;
    for (size_t i = b; i < e; i++)
        j->a[i] = j->b[i] = j->c[i] = czk_fr_zero;
}

/* a, b, c on the host (czk_shape_eval), zero-padded to N; *out malloc'ed (free()). */
czk_status host_abc(cuda_be *be, const czk_shape *s, const czk_witness *w, czk_fr **out,
                    czk_prove_timings *t, czk_err *err) {
    double t0 = now_s();
    size_t N = (size_t)1 << czk_domain_log(s->num_constraints);
    czk_fr *abc = (czk_fr *)malloc(3 * N * sizeof *abc);
    if (!abc) return czk_errf(err, CZK_ERR_NOMEM, "prove: host a, b, c (3 × %zu)", N);
    czk_status st = czk_shape_eval(s, w, abc, abc + N, abc + 2 * N, be->pool, err);
    if (st) {
        free(abc);
        return czk_err_wrap(err, "prove: SpMV (host)");
    }
    size_t n = (size_t)s->num_constraints;
    eval_pad pj = {abc + n, abc + N + n, abc + 2 * N + n};
    czk_pool_for(be->pool, N - n, 1 << 16, pad_fn, &pj);
    *out = abc;
    t->spmv += now_s() - t0;
    return CZK_OK;
}

czk_status circuit(cuda_be *be, const czk_params *p, const czk_shape *s, const czk_witness *w,
                   const czk_device_lock *lock, czk_msm_sums *out, czk_prove_timings *t,
                   czk_err *err) {
    pthread_mutex_lock(&be->mu);
    resident *r = find(be, p);
    bool dev_spmv = r && r->dshape && r->shape == s, on_dev = r && r->params_on_dev;
    pthread_mutex_unlock(&be->mu);
    czk_fr *abc = NULL;
    czk_status st = p->lagrange ? czk_params_lagrange_check(p->lagrange, s, err) : CZK_OK;
    if (st) return czk_err_wrap(err, "cuda prove");
    /* parameters streamed from host memory: encoded ones are decoded first (once) */
    if (!on_dev && (st = czk_params_decode_vectors(p, be->pool, err)))
        return czk_err_wrap(err, "cuda prove");
    if (!dev_spmv && (st = host_abc(be, s, w, &abc, t, err))) return st;
    if ((st = checkpoint(lock, "the host SpMV", err))) {
        free(abc);
        return st;
    }
    czk_device_lock_acquire(lock);
    pthread_mutex_lock(&be->mu);
    r = find(be, p);
    if (!abc && !(r && r->dshape && r->shape == s))
        st = czk_errf(err, CZK_ERR_INTERNAL, "prove: the shape left the device during the call");
    else if (!(r && r->params_on_dev) && p->encoded)
        st = czk_errf(err, CZK_ERR_INTERNAL,
                      "prove: the parameters left the device during the call, and their host "
                      "vectors are encoded");
    bool released = false;
    if (!st) st = one_circuit(be, r, p, s, w, abc, lock, &released, out, t, err);
    if (!released) {
        pthread_mutex_unlock(&be->mu);
        czk_device_lock_release(lock);
    }
    free(abc);
    /* the Lagrange form's inputs' share of C: Σ z_k·w_in[k] over the few inputs, on the host */
    if (!st && p->lagrange) {
        czk_g1 win;
        st = czk_msm_g1(&win, p->lagrange->w_in, w->inputs, w->num_inputs, be->pool, err);
        if (!st) blst_p1_add_or_double(&out->h, &out->h, &win);
    }
    if (st && st != CZK_ERR_CANCELLED) czk_err_wrap(err, "cuda prove");
    return st;
}

czk_status be_sums(void *self, const czk_params *p, const czk_shape *s, const czk_witness *w,
                   size_t count, czk_msm_sums *out, czk_prove_timings *t, czk_err *err) {
    cuda_be *be = (cuda_be *)self;
    for (size_t k = 0; k < count; k++) {
        czk_status st = circuit(be, p, s, &w[k], NULL, &out[k], t, err);
        if (st) {
            if (count > 1) czk_err_wrap(err, "circuit %zu", k);
            return st;
        }
    }
    return CZK_OK;
}

czk_status be_device(void *self, const czk_params *p, const czk_shape *s, const czk_witness *w,
                     const czk_device_lock *lock, czk_msm_sums *out, unsigned *deferred,
                     czk_prove_timings *t, czk_err *err) {
    *deferred = 0; /* the G2 MSM runs on the GPU */
    return circuit((cuda_be *)self, p, s, w, lock, out, t, err);
}

/*
 * Decodes the encoded vector k just uploaded (load() of encoded params): a refused point is named
 * by the host reader's verdict on it (the host bytes are still the file's), so the message is
 * the reader's; a device that refuses what the host accepts is a fault of ours.
 */
czk_status decode_on_device(cuda_be *be, resident *r, int k, czk_err *err) {
    uint64_t bad = UINT64_MAX;
    czk_status st =
        czk_cuda_decode_points(be->ctx, r->dev[k], r->host.n[k], k == V_B2 ? 2 : 1, &bad, err);
    if (st) return czk_err_wrap(err, "load: decoding params %s on the device", VEC_NAME[k]);
    if (bad == UINT64_MAX) return CZK_OK;
    st = czk_params_check_encoded_point(r->params, VEC_BIT[k], (size_t)bad, err);
    if (st) return czk_err_wrap(err, "load");
    return czk_errf(err, CZK_ERR_INTERNAL,
                    "load: the device refused params section %s, point %llu, which the host "
                    "decoder accepts",
                    VEC_NAME[k], (unsigned long long)bad);
}

czk_status upload_index(cuda_be *be, resident *r, const czk_shape *s, czk_err *err);

/* The five vectors (decoded on the device after the upload when `encoded`) and the index lists. */
czk_status upload_params(cuda_be *be, resident *r, const czk_shape *s, bool encoded, czk_err *err) {
    czk_status st;
    for (int k = 0; k < NVEC; k++) {
        size_t bytes = (size_t)r->host.n[k] * vec_elem(k);
        if ((st = czk_cuda_alloc(be->ctx, &r->dev[k], bytes, err)) ||
            (bytes && (st = upload_fast(be->ctx, r->dev[k], r->host.p[k], bytes, err))))
            return czk_err_wrap(err, "load: params %s (%zu bytes)", VEC_NAME[k], bytes);
        if (encoded && vec_encoded(r->params, k) && (st = decode_on_device(be, r, k, err)))
            return st;
    }
    if ((st = upload_index(be, r, s, err))) return st;
    r->params_on_dev = true;
    return CZK_OK;
}

/* The index lists of the A- and B-dense scalars into z (r->a_idx, r->b_idx), checked against
 * the params' vector lengths. */
czk_status upload_index(cuda_be *be, resident *r, const czk_shape *s, czk_err *err) {
    czk_status st;
    size_t nv = (size_t)s->num_inputs + s->num_aux;
    uint32_t *h = (uint32_t *)malloc((nv + 1) * 4);
    if (!h) return czk_errf(err, CZK_ERR_NOMEM, "load: host index list");
    uint32_t na = index_a(s, h);
    st = na != r->host.n[V_A]
             ? czk_errf(err, CZK_ERR_MISMATCH, "load: %u A-dense scalars, params a holds %u", na,
                        r->host.n[V_A])
             : czk_cuda_alloc(be->ctx, (void **)&r->a_idx, (size_t)na * 4, err);
    if (!st && na) st = upload_fast(be->ctx, r->a_idx, h, (size_t)na * 4, err);
    uint32_t nb = st ? 0 : index_b(s, h);
    if (!st && (nb != r->host.n[V_B1] || nb != r->host.n[V_B2]))
        st = czk_errf(err, CZK_ERR_MISMATCH, "load: %u B-dense scalars, params b_g1 holds %u", nb,
                      r->host.n[V_B1]);
    if (!st) st = czk_cuda_alloc(be->ctx, (void **)&r->b_idx, (size_t)nb * 4, err);
    if (!st && nb) st = upload_fast(be->ctx, r->b_idx, h, (size_t)nb * 4, err);
    free(h);
    return st;
}

czk_status be_load(void *self, const czk_params *p, const czk_shape *s, unsigned *host_droppable,
                   uint64_t *device_bytes, czk_err *err) {
    cuda_be *be = (cuda_be *)self;
    *host_droppable = 0;
    *device_bytes = 0;
    pthread_mutex_lock(&be->mu);
    czk_status st = CZK_OK;
    resident *r = find(be, p);
    if (r) { /* loaded before: report as it is */
        if (r->params_on_dev)
            for (int k = 0; k < NVEC; k++)
                *host_droppable |= VEC_BIT[k];
        *device_bytes = r->device_bytes;
        pthread_mutex_unlock(&be->mu);
        return CZK_OK;
    }
    vecs v = params_vecs(p);
    for (int k = 0; k < NVEC && !st; k++)
        if (!v.p[k] && v.n[k])
            st = czk_errf(err, CZK_ERR_INVALID_ARG, "load: params %s is not in host memory",
                          VEC_NAME[k]);
    /* encoded vectors: decoded on the device after the upload, unless switched off */
    if (!st && p->encoded && !czk_cuda_params_device_decode())
        st = czk_params_decode_vectors(p, be->pool, err);
    r = st ? NULL : (resident *)calloc(1, sizeof *r);
    if (!st && !r) st = czk_errf(err, CZK_ERR_NOMEM, "load: host memory");
    if (st) {
        pthread_mutex_unlock(&be->mu);
        return st;
    }
    r->params = p;
    r->shape = s;
    r->host = v;
    uint64_t pbytes = 0;
    for (int k = 0; k < NVEC; k++)
        pbytes += (uint64_t)v.n[k] * vec_elem(k);
    pbytes += ((uint64_t)v.n[V_A] + v.n[V_B1]) * 4;
    uint64_t sbytes = czk_cuda_shape_device_bytes(s), work = working_bytes(s);
    uint64_t dfree = device_avail(be);
    uint64_t left = be->budget ? (be->budget > be->used ? be->budget - be->used : 0) : UINT64_MAX;
    auto fits = [&](uint64_t x) { return x <= left && x + work <= (uint64_t)dfree; };
    if (fits(pbytes)) {
        czk_err e2;
        st = upload_params(be, r, s, p->encoded, &e2);
        if (!st) {
            r->device_bytes = pbytes;
            if (fits(pbytes + sbytes)) {
                if (!czk_cuda_shape_upload(be->ctx, &r->dshape, s, &e2))
                    r->device_bytes += sbytes;
                else
                    r->dshape = NULL; /* host SpMV */
            }
        } else {
            for (int k = 0; k < NVEC; k++) {
                czk_cuda_free(be->ctx, r->dev[k]);
                r->dev[k] = NULL;
            }
            czk_cuda_free(be->ctx, r->a_idx);
            czk_cuda_free(be->ctx, r->b_idx);
            r->a_idx = r->b_idx = NULL;
            r->params_on_dev = false;
            if (st != CZK_ERR_NOMEM) { /* a device fault, a bad point, a shape that does not
                                          fit: give up */
                if (err) *err = e2;
                free(r);
                pthread_mutex_unlock(&be->mu);
                return st;
            }
            st = CZK_OK; /* no room after all: pin instead */
        }
    }
    if (!r->params_on_dev) {
        /* pinned and streamed: the device part reads host points */
        if ((st = czk_params_decode_vectors(p, be->pool, err))) {
            free(r);
            pthread_mutex_unlock(&be->mu);
            return st;
        }
        for (int k = 0; k < NVEC && !st; k++) {
            size_t bytes = (size_t)v.n[k] * vec_elem(k);
            if (!bytes) continue;
            cudaError_t e = cudaHostRegister((void *)v.p[k], bytes, cudaHostRegisterPortable);
            if (e == cudaErrorHostMemoryAlreadyRegistered) { /* pinned by another backend */
                (void)cudaGetLastError();
                r->pinned_by_other = true;
            } else if (e != cudaSuccess) {
                (void)cudaGetLastError();
                st = czk_errf(err, CZK_ERR_NOMEM,
                              "load: params (%llu bytes) do not fit the device (budget %llu, "
                              "free %llu, working reserve %llu) and pinning %s (%zu bytes) "
                              "failed: %s",
                              (unsigned long long)pbytes, (unsigned long long)left,
                              (unsigned long long)dfree, (unsigned long long)work, VEC_NAME[k],
                              bytes, cudaGetErrorName(e));
            } else {
                r->pinned[k] = true;
            }
        }
        if (st) {
            for (int k = 0; k < NVEC; k++)
                if (r->pinned[k]) (void)cudaHostUnregister((void *)v.p[k]);
            (void)cudaGetLastError();
            free(r);
            pthread_mutex_unlock(&be->mu);
            return st;
        }
    }
    if (!r->params_on_dev) {
        /* streamed keys: the shape and the index lists still go to the device where they fit
         * (8.3 + 0.65 GiB at 32GiB beside the working memory, on a 78 GiB card too), so that
         * SpMV and the gathers run there instead of on the host and a, b, c are not uploaded */
        uint64_t ibytes = ((uint64_t)v.n[V_A] + v.n[V_B1]) * 4;
        czk_err e2;
        if (fits(sbytes + ibytes)) {
            if (!czk_cuda_shape_upload(be->ctx, &r->dshape, s, &e2) &&
                !upload_index(be, r, s, &e2)) {
                r->device_bytes = sbytes + ibytes;
            } else { /* no room after all, or a shape the device refuses: host SpMV */
                czk_cuda_shape_free(be->ctx, r->dshape);
                czk_cuda_free(be->ctx, r->a_idx);
                czk_cuda_free(be->ctx, r->b_idx);
                r->dshape = NULL;
                r->a_idx = r->b_idx = NULL;
                (void)cudaGetLastError();
            }
        }
    }
    r->next = be->res;
    be->res = r;
    be->used += r->device_bytes;
    if (r->params_on_dev)
        for (int k = 0; k < NVEC; k++)
            *host_droppable |= VEC_BIT[k];
    *device_bytes = r->device_bytes;
    pthread_mutex_unlock(&be->mu);
    return CZK_OK;
}

void be_unload(void *self, const czk_params *p) {
    cuda_be *be = (cuda_be *)self;
    pthread_mutex_lock(&be->mu);
    for (;;) { /* an MSM stage still reading the keys ends first */
        bool busy = false;
        for (resident *r = be->res; r; r = r->next)
            busy |= r->params == p && r->users > 0;
        if (!busy) break;
        pthread_cond_wait(&be->cv, &be->mu);
    }
    for (resident *r = be->res; r;) {
        resident *nx = r->next;
        if (r->params == p) drop(be, r);
        r = nx;
    }
    pthread_mutex_unlock(&be->mu);
}

void be_destroy(void *self) {
    cuda_be *be = (cuda_be *)self;
    if (!be) return;
    while (be->res)
        drop(be, be->res);
    void *bufs[] = {be->z,   be->abc,     be->sc,        be->sc2,      be->bases,
                    be->idx, be->spare.z, be->spare.abc, be->spare.sc, be->spare.sc2};
    for (void *b : bufs)
        czk_cuda_free(be->ctx, b);
    for (int k = 0; k < NAUX; k++)
        czk_cuda_ctx_destroy(be->aux[k]);
    czk_cuda_ctx_destroy(be->hctx);
    czk_cuda_ctx_destroy(be->ctx);
    czk_pool_destroy(be->copy_pool);
    pthread_mutex_destroy(&be->mu);
    pthread_mutex_destroy(&be->msm_mu);
    pthread_cond_destroy(&be->cv);
    free(be);
}

/* Page-locked host memory for witnesses (czk_backend_ops.host_alloc): portable, so any context
 * DMAs from it; NULL when the driver cannot pin that much. */
void *be_host_alloc(void *self, size_t bytes) {
    cuda_be *be = (cuda_be *)self;
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = -1;
    void *p = NULL;
    if (cudaSetDevice(be->ctx->device) != cudaSuccess ||
        cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess)
        p = NULL;
    if (prev >= 0) (void)cudaSetDevice(prev);
    (void)cudaGetLastError();
    return p;
}

void be_host_free(void *self, void *p, size_t bytes) {
    (void)self;
    (void)bytes;
    if (!p) return;
    (void)cudaFreeHost(p);
    (void)cudaGetLastError();
}

/* The device's memory (cudaMemGetInfo on the context's device), for status pages. */
czk_status be_mem_info(void *self, uint64_t *total_bytes, uint64_t *free_bytes, czk_err *err) {
    cuda_be *be = (cuda_be *)self;
    size_t fr = 0, tot = 0;
    if (cudaSetDevice(be->ctx->device) != cudaSuccess || cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        cudaError_t e = cudaGetLastError();
        return czk_errf(err, CZK_ERR_DEVICE, "cuda backend: memory info of device %d: %s",
                        be->ctx->device, cudaGetErrorString(e));
    }
    *total_bytes = tot;
    *free_bytes = fr;
    return CZK_OK;
}

const czk_backend_ops CUDA_OPS = {"cuda",    be_sums,     be_destroy,    be_device,   be_load,
                                  be_unload, be_mem_info, be_host_alloc, be_host_free};

} // namespace

extern "C" czk_status czk_backend_cuda(czk_backend *out, int device, czk_pool *pool,
                                       uint64_t vram_budget_bytes, czk_err *err) {
    out->ops = NULL;
    out->self = NULL;
    /* benchmark knobs for MSM H's context alone (the overlapped stage's; CZK_CUDA_MSM_C would set
     * the witness MSMs' contexts too): its window size and the hybrid's K, unset = msm.cuh's
     * choice (c = 22, K = 2 at 2^27 since bench/GPU.md's thirteenth run measured them here) */
    long h_knob[2] = {0, 0}, packed = 1; /* benchmark knob: CZK_CUDA_PACKED=0, the full witness */
    czk_status kst;
    if ((kst = czk_cuda_env_range("cuda backend", "CZK_CUDA_MSM_H_C", 6, 22, &h_knob[0], err)) ||
        (kst = czk_cuda_env_range("cuda backend", "CZK_CUDA_MSM_H_K", 2, 64, &h_knob[1], err)) ||
        (kst = czk_cuda_env_range("cuda backend", "CZK_CUDA_PACKED", 0, 1, &packed, err)))
        return kst;
    cuda_be *be = (cuda_be *)calloc(1, sizeof *be);
    if (!be) return czk_errf(err, CZK_ERR_NOMEM, "cuda backend: host memory");
    czk_status st = czk_cuda_ctx_create(&be->ctx, device, err);
    if (st) {
        free(be);
        return czk_err_wrap(err, "cuda backend");
    }
    for (int k = 0; k < NAUX; k++) {
        czk_err e2;
        if (czk_cuda_ctx_create(&be->aux[k], device, &e2)) { /* no parallel MSMs then */
            for (int q = 0; q < k; q++) {
                czk_cuda_ctx_destroy(be->aux[q]);
                be->aux[q] = NULL;
            }
            break;
        }
    }
    for (int k = 0; k < NAUX; k++)
        if (be->aux[k]) czk_cuda_set_msm_cap(be->aux[k], MSM_CAP);
    {
        czk_err e2;
        const char *ov = getenv("CZK_CUDA_OVERLAP"); /* benchmark knob: 0 = MSMs inside */
        be->overlap = !(ov && !strcmp(ov, "0"));
        const char *ge = getenv("CZK_CUDA_GATHER_EARLY"); /* benchmark knob: 0 = after H */
        be->gather_early = !(ge && !strcmp(ge, "0"));
        if (be->overlap && be->aux[0] && czk_cuda_ctx_create(&be->hctx, device, &e2))
            be->hctx = NULL; /* only the overlapped stage uses it */
        /* CZK_CUDA_MSM_H_PRIORITY=1: MSM H first where it competes with the witness MSMs and the
         * next circuit's H, whose blocks then fill its gaps. Off by default: it gained 6 ms on a
         * 32GiB partition, and it would put a WinningPoSt's kernels (default priority) behind
         * every queued MSM H kernel of the PoRep stage, not measured (bench/GPU.md, eleventh run)
         */
        const char *hp = getenv("CZK_CUDA_MSM_H_PRIORITY");
        if (be->hctx && hp && !strcmp(hp, "1")) {
            const czk_status pst = czk_cuda_ctx_set_priority(be->hctx, true, &e2);
            (void)pst; /* refused: equal priority, the stage runs as before */
        }
        if (be->hctx && h_knob[0]) {
            const czk_status cst = czk_cuda_set_msm_c(be->hctx, (int)h_knob[0], &e2);
            (void)cst; /* 6..22, checked above: accepted */
        }
        if (be->hctx && h_knob[1]) czk_cuda_set_msm_hybrid_k(be->hctx, (uint32_t)h_knob[1]);
    }
    {
        czk_err e2;
        unsigned nt = czk_cpu_count() < COPY_THREADS ? czk_cpu_count() : COPY_THREADS;
        const char *ct = getenv("CZK_CUDA_COPY_THREADS"); /* benchmark knob, 1..64 */
        if (ct && atoi(ct) >= 1 && atoi(ct) <= 64) nt = (unsigned)atoi(ct);
        be->copy_pool = nt > 1 ? czk_pool_create(nt, &e2) : NULL; /* NULL: copies on the caller */
        czk_cuda_set_copy_pool(be->ctx, be->copy_pool);
    }
    pthread_mutex_init(&be->mu, NULL);
    pthread_mutex_init(&be->msm_mu, NULL);
    pthread_cond_init(&be->cv, NULL);
    be->serial_msm = getenv("CZK_CUDA_SERIAL_MSM") != NULL; /* read once, here */
    be->packed = packed != 0;
    be->pool = pool;
    be->budget = vram_budget_bytes;
    out->ops = &CUDA_OPS;
    out->self = be;
    return CZK_OK;
}

extern "C" czk_status czk_backend_cuda_residency(const czk_backend *b, const czk_params *params,
                                                 czk_cuda_residency *out, czk_err *err) {
    memset(out, 0, sizeof *out);
    if (b->ops != &CUDA_OPS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "residency: not a CUDA backend");
    cuda_be *be = (cuda_be *)b->self;
    pthread_mutex_lock(&be->mu);
    resident *r = find(be, params);
    if (r) {
        out->loaded = true;
        out->params_resident = r->params_on_dev;
        out->shape_resident = r->dshape != NULL;
        out->pinned = r->pinned[V_H] || r->pinned[V_L] || r->pinned_by_other;
        out->device_bytes = r->device_bytes;
    }
    pthread_mutex_unlock(&be->mu);
    return CZK_OK;
}

extern "C" czk_status czk_backend_cuda_set_serial_msm(const czk_backend *b, bool serial,
                                                      czk_err *err) {
    if (b->ops != &CUDA_OPS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "set_serial_msm: not a CUDA backend");
    cuda_be *be = (cuda_be *)b->self;
    pthread_mutex_lock(&be->mu);
    be->serial_msm = serial;
    pthread_mutex_unlock(&be->mu);
    return CZK_OK;
}

extern "C" czk_status czk_backend_cuda_set_packed(const czk_backend *b, bool packed, czk_err *err) {
    if (b->ops != &CUDA_OPS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "set_packed: not a CUDA backend");
    cuda_be *be = (cuda_be *)b->self;
    pthread_mutex_lock(&be->mu);
    be->packed = packed;
    pthread_mutex_unlock(&be->mu);
    return CZK_OK;
}

extern "C" czk_status czk_backend_cuda_set_stream_chunk(const czk_backend *b, size_t points,
                                                        czk_err *err) {
    if (b->ops != &CUDA_OPS)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "set_stream_chunk: not a CUDA backend");
    cuda_be *be = (cuda_be *)b->self;
    pthread_mutex_lock(&be->mu);
    be->chunk = points;
    pthread_mutex_unlock(&be->mu);
    return CZK_OK;
}
