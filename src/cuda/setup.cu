/*
 * Groth16 setup on the GPU: fixed-base products k_i·G of the generators
 * G1 and G2, and the setup backend (czk_setup_ops, include/czk/groth16.h)
 * that czk_setup_write drives.
 *
 * Tables. As on the CPU (src/groth16/fixed_base.h, which builds them here
 * too): with w = 13 and half = 2^12, T[j][d−1] = d·2^(13j)·G for 21 windows
 * j and d in [1, half], affine, 8.3 MB for G1 and 16.5 MB for G2 (they stay
 * in the 60 MB L2). A scalar k (canonical, from Montgomery form) is recoded
 * into signed digits e_j in [−half, half) with a carry, so k·G = Σ_j
 * sign(e_j)·T[j][|e_j| − 1]: 21 mixed additions and no doubling.
 *
 * Kernels, per chunk of at most 2^22 points:
 *   fb_mul     one thread per scalar: the digits come off the scalar 13 bits
 *              at a time (a multi-limb shift, all in registers) and each
 *              non-zero digit adds a table point into an xyzz accumulator
 *              (add_affine: doubling and opposite points handled), written
 *              to a scratch buffer;
 *   fb_affine  the batch conversion to affine: each thread takes B points
 *              (strided by the block, so loads coalesce) and multiplies
 *              their ZZZ together; a product tree over the block in shared
 *              memory leaves one inversion per block (Montgomery's trick
 *              twice), then each thread walks its points back: x = X·(ZZ/
 *              ZZZ)², y = Y/ZZZ. The result is written either as blst affine
 *              (Montgomery coordinates, czk_g1_affine / czk_g2_affine) or as
 *              the zcash uncompressed encoding (big-endian canonical
 *              coordinates, Fp2 as c1 ‖ c0), so that the host writes the
 *              bytes as they come. A zero scalar gives infinity: all-zero
 *              affine, or 0x40 and zeros encoded (blst's serialization).
 * Expected cost (not measured): ≈ 21 mixed additions (≈ 10 Fp
 * multiplications each) + ≈ 8 per point for the conversion and encoding:
 * 427 M G1 points ≈ 9.3e10 Fp mul ≈ 3.5–4 s at the measured 2.3–2.7e10/s;
 * the 33 M G2 points ≈ 1 s. Scratch: 192 (G1) / 384 (G2) bytes per point of
 * a chunk.
 *
 * The backend moves host data in chunks through device buffers it owns:
 * scalars up, points down (into the page-locked piece buffers of the
 * writer, which it allocates: host_alloc), one chunk after another on the
 * context's stream; the inverse NTT of the Lagrange basis runs on the
 * device too (czk_cuda_ntt: the same values as czk_ntt).
 */
#include "ctx.cuh"
#include "group.cuh"

#include "groth16/fixed_base.h"

#include <stdlib.h>
#include <string.h>
#include <type_traits>

CZK_FIXED_BASE_TABLE_IMPL(p1)
CZK_FIXED_BASE_TABLE_IMPL(p2)

struct czk_cuda_fb {
    czk_cuda_ctx *ctx;
    czkg::g1::A *t1;
    czkg::g2::A *t2;
};

namespace czkg {

namespace {

constexpr uint32_t FB_W = CZK_FB_WBITS, FB_HALF = CZK_FB_HALF, FB_WINDOWS = CZK_FB_WINDOWS;
static_assert(FB_W == 13 && FB_WINDOWS == 21, "the tables of fixed_base.h");
constexpr uint32_t FB_CHUNK = 1u << 22; /* points per kernel pair (scratch: 805 MB for G1) */
/*
 * Per group: MUL_THREADS of fb_mul (one block per SM at ≤ 168 / 255 registers, as the MSM's
 * accumulation kernel), THREADS and AFF_B (points per thread) of fb_affine (24 KB of shared
 * memory for the product tree), ENC the encoded size.
 */
template <class G> struct fb_traits;
template <> struct fb_traits<g1> {
    static constexpr int MUL_THREADS = 384, THREADS = 256, AFF_B = 8, ENC = 96;
};
template <> struct fb_traits<g2> {
    static constexpr int MUL_THREADS = 128, THREADS = 128, AFF_B = 4, ENC = 192;
};

/*
 * k·G (xyzz) from the table, k in Montgomery form: the digits come off the canonical scalar 13
 * bits at a time (a multi-limb shift in registers), with a carry as fixed_base.h recodes.
 */
template <class G> CZK_HD typename G::X fb_point(const typename G::A *tab, const fr &k) {
    using A = typename G::A;
    using X = typename G::X;
    fr c = k.from_mont(); /* canonical, < r < 2^255 */
    X acc = X::inf();
    uint32_t carry = 0;
#pragma unroll 1
    for (uint32_t j = 0; j < FB_WINDOWS; j++) {
        uint32_t v = (c.v[0] & (2 * FB_HALF - 1)) + carry;
#pragma unroll
        for (int t = 0; t < 7; t++)
            c.v[t] = (c.v[t] >> FB_W) | (c.v[t + 1] << (32 - FB_W));
        c.v[7] >>= FB_W;
        int e = (int)v;
        carry = v >= FB_HALF;
        if (carry) e -= (int)(2 * FB_HALF);
        if (e == 0) continue;
        A q = ld_hd(tab + (size_t)j * FB_HALF + (uint32_t)(e < 0 ? -e : e) - 1);
        if (e < 0) q.y = q.y.neg();
        acc.add_affine(q);
    }
    return acc;
}

/* out[i] = k[i]·G (xyzz), i < n. */
template <class G>
__global__ void __launch_bounds__(fb_traits<G>::MUL_THREADS, 1)
    fb_mul(const typename G::A *__restrict__ tab, const fr *__restrict__ k, uint32_t n,
           typename G::X *__restrict__ out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    st_vec(out + i, fb_point<G>(tab, ld_vec(k + i)));
}

CZK_HD uint32_t bswap32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __byte_perm(x, 0, 0x0123);
#else
    return __builtin_bswap32(x);
#endif
}

/* Big-endian canonical bytes of a Montgomery Fp, as 12 words (word 0 first in memory). */
CZK_HD void be_words(uint32_t *o, const fp &a) {
    fp c = a.from_mont();
#pragma unroll
    for (int w = 0; w < 12; w++)
        o[w] = bswap32(c.v[11 - w]);
}
CZK_HD void enc_coord(uint32_t *o, const fp &a) {
    be_words(o, a);
}
CZK_HD void enc_coord(uint32_t *o, const fp2 &a) {
    be_words(o, a.c1);
    be_words(o + 12, a.c0);
}

/*
 * The zcash uncompressed encoding of p (not infinity), or 0x40 and zeros for infinity, as
 * ENC / 4 words in memory order (little-endian host and device).
 */
template <class G> CZK_HD void fb_encode(uint32_t *o, const typename G::A &p, bool inf) {
    constexpr int W = fb_traits<G>::ENC / 4;
    if (inf) {
#pragma unroll
        for (int w = 0; w < W; w++)
            o[w] = 0;
        o[0] = 0x40; /* byte 0: the infinity flag */
    } else {
        enc_coord(o, p.x);
        enc_coord(o + W / 2, p.y);
    }
}

template <class G>
__device__ __forceinline__ void store_encoded(uint8_t *dst, const typename G::A &p, bool inf) {
    constexpr int W = fb_traits<G>::ENC / 4;
    uint32_t o[W];
    fb_encode<G>(o, p, inf);
    uint4 *d = reinterpret_cast<uint4 *>(dst);
#pragma unroll
    for (int q = 0; q < W / 4; q++)
        d[q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
}

/*
 * out[i] = affine(acc[i]) for i < n, as blst affine (ENC false) or encoded (ENC true). A block
 * of THREADS threads covers THREADS·AFF_B points: thread t takes base + q·THREADS + t, q < AFF_B.
 */
template <class G, bool ENC>
__global__ void __launch_bounds__(fb_traits<G>::THREADS)
    fb_affine(const typename G::X *__restrict__ acc, uint32_t n, void *__restrict__ out) {
    using F = typename G::F;
    using A = typename G::A;
    using X = typename G::X;
    constexpr int T = fb_traits<G>::THREADS, AFF_B = fb_traits<G>::AFF_B;
    __shared__ F tree[2 * T]; /* heap order: node i has children 2i, 2i + 1; leaves at T + t */
    const int t = threadIdx.x;
    const uint64_t base = (uint64_t)blockIdx.x * T * AFF_B;
    F pref[AFF_B];
    F prod = F::one();
#pragma unroll
    for (int q = 0; q < AFF_B; q++) {
        uint64_t i = base + (uint64_t)q * T + t;
        pref[q] = prod;
        if (i < n) {
            X p = ld_vec(acc + i);
            if (!p.is_inf()) prod = prod * p.ZZZ;
        }
    }
    tree[T + t] = prod;
    __syncthreads();
#pragma unroll 1
    for (int level = T / 2; level >= 1; level >>= 1) {
        if (t < level) tree[level + t] = tree[2 * (level + t)] * tree[2 * (level + t) + 1];
        __syncthreads();
    }
    if (t == 0) tree[1] = tree[1].inv();
    __syncthreads();
#pragma unroll 1
    for (int level = 1; level < T; level <<= 1) {
        if (t < level) {
            int node = level + t;
            F inv = tree[node], l = tree[2 * node], r = tree[2 * node + 1];
            tree[2 * node] = inv * r;
            tree[2 * node + 1] = inv * l;
        }
        __syncthreads();
    }
    F inv = tree[T + t]; /* 1/prod */
#pragma unroll
    for (int q = AFF_B - 1; q >= 0; q--) {
        uint64_t i = base + (uint64_t)q * T + t;
        if (i >= n) continue;
        X p = ld_vec(acc + i);
        bool inf = p.is_inf();
        A a = {F::zero(), F::zero()};
        if (!inf) {
            a = p.to_affine_with(inv * pref[q]);
            inv = inv * p.ZZZ;
        }
        if (ENC)
            store_encoded<G>((uint8_t *)out + i * fb_traits<G>::ENC, a, inf);
        else
            st_vec((A *)out + i, a);
    }
}

template <class G>
czk_status fb_run(czk_cuda_fb *fb, const typename G::A *tab, void *out, const czk_fr *k, size_t n64,
                  czk_cuda_fb_form form, czk_err *err) {
    using X = typename G::X;
    constexpr int T = fb_traits<G>::THREADS, MT = fb_traits<G>::MUL_THREADS;
    if (n64 >= (1ull << 31))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "fixed-base %s: n = %zu is not below 2^31",
                        G::name, n64);
    if (form != CZK_CUDA_FB_AFFINE && form != CZK_CUDA_FB_ENCODED)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "fixed-base %s: unknown output form %d", G::name,
                        (int)form);
    if (n64 == 0) return CZK_OK;
    czk_cuda_ctx *ctx = fb->ctx;
    CZK_CU(cudaSetDevice(ctx->device), "fixed-base %s: select device", G::name);
    const uint32_t n = (uint32_t)n64;
    const uint32_t chunk = n < FB_CHUNK ? n : FB_CHUNK;
    dev_buf<X> scratch;
    CZK_CU(scratch.alloc(chunk, ctx->stream), "fixed-base %s: scratch of %u points", G::name,
           chunk);
    const size_t osz = form == CZK_CUDA_FB_ENCODED ? fb_traits<G>::ENC : sizeof(typename G::A);
    for (uint32_t off = 0; off < n; off += chunk) {
        uint32_t m = n - off < chunk ? n - off : chunk;
        fb_mul<G><<<grid_for(m, MT), MT, 0, ctx->stream>>>(tab, (const fr *)k + off, m, scratch.p);
        CZK_LAUNCH("fixed-base %s: products", G::name);
        void *o = (uint8_t *)out + (size_t)off * osz;
        unsigned blocks = grid_for(m, (unsigned)(T * fb_traits<G>::AFF_B));
        if (form == CZK_CUDA_FB_ENCODED)
            fb_affine<G, true><<<blocks, T, 0, ctx->stream>>>(scratch.p, m, o);
        else
            fb_affine<G, false><<<blocks, T, 0, ctx->stream>>>(scratch.p, m, o);
        CZK_LAUNCH("fixed-base %s: affine", G::name);
    }
    CZK_CU(cudaStreamSynchronize(ctx->stream), "fixed-base %s: synchronize", G::name);
    return CZK_OK;
}

/* ---- the setup backend ---- */

constexpr size_t BE_CHUNK_BYTES = (size_t)128 << 20; /* scalars per transfer: 2^22 */

struct cuda_setup {
    czk_cuda_ctx *ctx;
    czk_cuda_fb *fb;
    fr *dk;        /* BE_CHUNK_BYTES / 32 scalars */
    uint8_t *dout; /* their points (G2 affine: 192 bytes each) */
};

template <class G>
czk_status be_products(cuda_setup *c, void *out, const czk_fr *k, size_t n, czk_cuda_fb_form form,
                       czk_err *err) {
    const size_t per = BE_CHUNK_BYTES / sizeof(czk_fr);
    const size_t osz = form == CZK_CUDA_FB_ENCODED ? fb_traits<G>::ENC : sizeof(typename G::A);
    for (size_t off = 0; off < n; off += per) {
        size_t m = n - off < per ? n - off : per;
        czk_status st = czk_cuda_upload(c->ctx, c->dk, k + off, m * sizeof(czk_fr), err);
        if (!st)
            st = std::is_same<G, g1>::value
                     ? czk_cuda_fb_g1(c->fb, c->dout, (const czk_fr *)c->dk, m, form, err)
                     : czk_cuda_fb_g2(c->fb, c->dout, (const czk_fr *)c->dk, m, form, err);
        if (!st) st = czk_cuda_download(c->ctx, (uint8_t *)out + off * osz, c->dout, m * osz, err);
        if (st) return czk_err_wrap(err, "setup on the GPU (%s, %zu points)", G::name, n);
    }
    return CZK_OK;
}

czk_status be_g1(void *self, czk_g1_affine *out, const czk_fr *k, size_t n, czk_err *err) {
    return be_products<g1>((cuda_setup *)self, out, k, n, CZK_CUDA_FB_AFFINE, err);
}
czk_status be_g2(void *self, czk_g2_affine *out, const czk_fr *k, size_t n, czk_err *err) {
    return be_products<g2>((cuda_setup *)self, out, k, n, CZK_CUDA_FB_AFFINE, err);
}
czk_status be_g1_enc(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err) {
    return be_products<g1>((cuda_setup *)self, out, k, n, CZK_CUDA_FB_ENCODED, err);
}
czk_status be_g2_enc(void *self, uint8_t *out, const czk_fr *k, size_t n, czk_err *err) {
    return be_products<g2>((cuda_setup *)self, out, k, n, CZK_CUDA_FB_ENCODED, err);
}

czk_status be_intt(void *self, czk_fr *data, unsigned log_n, czk_err *err) {
    cuda_setup *c = (cuda_setup *)self;
    size_t bytes = ((size_t)1 << log_n) * sizeof(czk_fr);
    void *d = nullptr;
    czk_status st = czk_cuda_alloc(c->ctx, &d, bytes, err);
    if (!st) st = czk_cuda_upload(c->ctx, d, data, bytes, err);
    if (!st) st = czk_cuda_ntt(c->ctx, (czk_fr *)d, log_n, CZK_NTT_INVERSE, err);
    if (!st) st = czk_cuda_download(c->ctx, data, d, bytes, err);
    czk_cuda_free(c->ctx, d);
    if (st) czk_err_wrap(err, "setup on the GPU: inverse NTT of 2^%u", log_n);
    return st;
}

void *be_host_alloc(void *self, size_t bytes) {
    cuda_setup *c = (cuda_setup *)self;
    void *p = nullptr;
    if (cudaSetDevice(c->ctx->device) != cudaSuccess ||
        cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return p;
}

void be_host_free(void *self, void *p, size_t bytes) {
    (void)self, (void)bytes;
    if (p) (void)cudaFreeHost(p);
}

void be_destroy(void *self) {
    cuda_setup *c = (cuda_setup *)self;
    if (!c) return;
    if (c->ctx) {
        czk_cuda_free(c->ctx, c->dk);
        czk_cuda_free(c->ctx, c->dout);
    }
    czk_cuda_fb_destroy(c->fb);
    czk_cuda_ctx_destroy(c->ctx);
    free(c);
}

const czk_setup_ops CUDA_SETUP_OPS = {"cuda",  be_g1,         be_g2,        be_g1_enc, be_g2_enc,
                                      be_intt, be_host_alloc, be_host_free, be_destroy};

} // namespace

} // namespace czkg

using namespace czkg;

extern "C" czk_status czk_cuda_fb_create(czk_cuda_fb **out, czk_cuda_ctx *ctx, czk_err *err) {
    *out = nullptr;
    czk_cuda_fb *fb = (czk_cuda_fb *)calloc(1, sizeof *fb);
    if (!fb) return czk_errf(err, CZK_ERR_NOMEM, "fixed-base tables: out of memory");
    fb->ctx = ctx;
    czk_fb_p1 h1 = {nullptr};
    czk_fb_p2 h2 = {nullptr};
    const size_t n = (size_t)FB_WINDOWS * FB_HALF;
    czk_status st = czk_fb_p1_build(&h1, blst_p1_generator(), err);
    if (!st) st = czk_fb_p2_build(&h2, blst_p2_generator(), err);
    if (!st) st = czk_cuda_alloc(ctx, (void **)&fb->t1, n * sizeof(g1::A), err);
    if (!st) st = czk_cuda_alloc(ctx, (void **)&fb->t2, n * sizeof(g2::A), err);
    static_assert(sizeof(g1::A) == sizeof(blst_p1_affine) &&
                      sizeof(g2::A) == sizeof(blst_p2_affine),
                  "blst affine layout");
    if (!st) st = czk_cuda_upload(ctx, fb->t1, h1.t, n * sizeof(g1::A), err);
    if (!st) st = czk_cuda_upload(ctx, fb->t2, h2.t, n * sizeof(g2::A), err);
    czk_fb_p1_free(&h1);
    czk_fb_p2_free(&h2);
    if (st) {
        czk_cuda_fb_destroy(fb);
        return czk_err_wrap(err, "fixed-base tables");
    }
    *out = fb;
    return CZK_OK;
}

extern "C" void czk_cuda_fb_destroy(czk_cuda_fb *fb) {
    if (!fb) return;
    czk_cuda_free(fb->ctx, fb->t1);
    czk_cuda_free(fb->ctx, fb->t2);
    free(fb);
}

extern "C" czk_status czk_cuda_fb_g1(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                                     czk_cuda_fb_form form, czk_err *err) {
    return fb_run<g1>(fb, fb->t1, out, k, n, form, err);
}

extern "C" czk_status czk_cuda_fb_g2(czk_cuda_fb *fb, void *out, const czk_fr *k, size_t n,
                                     czk_cuda_fb_form form, czk_err *err) {
    return fb_run<g2>(fb, fb->t2, out, k, n, form, err);
}

extern "C" czk_status czk_setup_backend_cuda(czk_setup_backend *out, int device, czk_err *err) {
    out->ops = nullptr;
    out->self = nullptr;
    if (device < 0 || device >= czk_cuda_device_count())
        return czk_errf(err, CZK_ERR_INVALID_ARG, "setup backend: no CUDA device %d (%d here)",
                        device, czk_cuda_device_count());
    cuda_setup *c = (cuda_setup *)calloc(1, sizeof *c);
    if (!c) return czk_errf(err, CZK_ERR_NOMEM, "setup backend: out of memory");
    const size_t per = BE_CHUNK_BYTES / sizeof(czk_fr);
    czk_status st = czk_cuda_ctx_create(&c->ctx, device, err);
    if (!st) st = czk_cuda_fb_create(&c->fb, c->ctx, err);
    if (!st) st = czk_cuda_alloc(c->ctx, (void **)&c->dk, BE_CHUNK_BYTES, err);
    if (!st) st = czk_cuda_alloc(c->ctx, (void **)&c->dout, per * sizeof(g2::A), err);
    if (st) {
        be_destroy(c);
        return czk_err_wrap(err, "setup backend on device %d", device);
    }
    out->ops = &CUDA_SETUP_OPS;
    out->self = c;
    return CZK_OK;
}

/* ---- the per-point device code run on the host (tests without a GPU) ---- */

namespace {

inline void h_mult(blst_p1 *o, const byte *k) {
    blst_p1_mult(o, blst_p1_generator(), k, 255);
}
inline void h_mult(blst_p2 *o, const byte *k) {
    blst_p2_mult(o, blst_p2_generator(), k, 255);
}
inline void h_affine(blst_p1_affine *o, const blst_p1 *p) {
    blst_p1_to_affine(o, p);
}
inline void h_affine(blst_p2_affine *o, const blst_p2 *p) {
    blst_p2_to_affine(o, p);
}
inline void h_serialize(uint8_t *o, const blst_p1_affine *p) {
    czk_g1_serialize(o, p);
}
inline void h_serialize(uint8_t *o, const blst_p2_affine *p) {
    czk_g2_serialize(o, p);
}

template <class G>
czk_status host_check(const typename G::A *tab, const czk_fr *k, size_t n, czk_err *err) {
    using A = typename G::A;
    constexpr int ENC = fb_traits<G>::ENC;
    for (size_t i = 0; i < n; i++) {
        fr kk;
        memcpy(&kk, &k[i], sizeof kk);
        typename G::X p = fb_point<G>(tab, kk);
        bool inf = p.is_inf();
        A a = p.to_affine();
        uint32_t enc[ENC / 4];
        fb_encode<G>(enc, a, inf);
        blst_scalar sc;
        blst_scalar_from_fr(&sc, &k[i]);
        typename G::host_point want;
        typename G::host_affine wa;
        h_mult(&want, sc.b);
        h_affine(&wa, &want);
        uint8_t we[ENC];
        h_serialize(we, &wa);
        if (memcmp(&a, &wa, sizeof wa))
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "fixed-base %s on the host: scalar %zu: affine point differs from "
                            "blst's",
                            G::name, i);
        if (memcmp(enc, we, ENC))
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "fixed-base %s on the host: scalar %zu: encoding differs from "
                            "czk_g%c_serialize's",
                            G::name, i, G::name[1]);
    }
    return CZK_OK;
}

} // namespace

extern "C" czk_status czk_cuda_fb_host_check(unsigned group, const czk_fr *k, size_t n,
                                             czk_err *err) {
    if (group != 1 && group != 2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "fixed-base host check: group %u", group);
    czk_status st;
    if (group == 1) {
        czk_fb_p1 t = {nullptr};
        if ((st = czk_fb_p1_build(&t, blst_p1_generator(), err))) return st;
        st = host_check<g1>((const g1::A *)t.t, k, n, err);
        czk_fb_p1_free(&t);
    } else {
        czk_fb_p2 t = {nullptr};
        if ((st = czk_fb_p2_build(&t, blst_p2_generator(), err))) return st;
        st = host_check<g2>((const g2::A *)t.t, k, n, err);
        czk_fb_p2_free(&t);
    }
    return st;
}
