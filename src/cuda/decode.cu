/*
 * Parameter points decoded on the device (include/czk/cuda.h,
 * czk_cuda_decode_points): encoded vectors (CZK_PARAMS_ENCODED) are
 * uploaded as the file holds them and turned into blst's affine form in
 * place, one thread per point, instead of by blst on the host (~30 s for
 * the 470 M points of a 32GiB PoRep key on 16 threads).
 *
 * Per point, as the host reader (src/ec/encoding.c, blst's deserialize
 * with the subgroup check skipped) refuses: any of the three flag bits of
 * byte 0 (compression, infinity, sign: an uncompressed parameter point
 * holds none; infinity is refused in any form), a coordinate (each Fp of
 * it; G2 encodes c1 ‖ c0) not below p, (x, y) not on the curve (G1:
 * y² = x³ + 4; G2: y² = x³ + 4(u + 1)), and for G1 x = 0 (blst refuses
 * (0, ±2) as outside the subgroup). The coordinates are then converted to
 * Montgomery form (x·R² by one Montgomery multiplication, valid since
 * x < p) and written over the encoding: both are 96 (G1) or 192 (G2)
 * bytes. The kernel only finds the lowest refused index (atomicMin); the
 * caller names the defect by decoding that one point on the host
 * (czk_params_check_encoded_point), so messages are the reader's own.
 *
 * Cost (H200, expected): G1 5 Fp multiplications per point (2 to Montgomery
 * form, x²·x, y²), G2 4 + 4 Fp2 products (11 Fp); 470 M points ≈ 3·10⁹
 * multiplications at ~2.7·10¹⁰/s ≈ 0.1 s, and 47 GB read and written
 * once at ~4 TB/s ≈ 25 ms. The same per-point code runs on the host for
 * the tests (czk_cuda_decode_host_check), compared with blst there.
 */
#include "ctx.cuh"

#include <blst.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

using namespace czkg;

namespace {

CZK_HD uint32_t swap32(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __byte_perm(x, 0, 0x0123);
#else
    return __builtin_bswap32(x);
#endif
}

/* The integer of 48 big-endian bytes held as 12 words in memory order, as little-endian limbs. */
CZK_HD fp from_be(const uint32_t *w) {
    fp r;
#pragma unroll
    for (int i = 0; i < 12; i++)
        r.v[i] = swap32(w[11 - i]);
    return r;
}

/* a < p for the integer a (not reduced). */
CZK_HD bool below_p(const fp &a) {
    carry_chain k;
    (void)k.sub_cc(a.v[0], fp_params::m(0));
#pragma unroll
    for (int i = 1; i < 12; i++)
        (void)k.subc_cc(a.v[i], fp_params::m(i));
    return k.subc(0, 0) != 0; /* the borrow: a − p < 0 */
}

/* 4 in Montgomery form. */
CZK_HD fp four() {
    return fp::one().dbl().dbl();
}

/*
 * The words of one encoding (W = 24 for G1, 48 for G2, memory order) decoded into out (the
 * same number of words: blst's affine layout). False for what the host reader refuses.
 */
CZK_HD bool decode_g1(const uint32_t *in, uint32_t *out) {
    fp x = from_be(in), y = from_be(in + 12);
    if ((x.v[11] >> 29) != 0 || !below_p(x) || !below_p(y) || x.is_zero()) return false;
    x = x.to_mont();
    y = y.to_mont();
    if (y.sqr() != x.sqr() * x + four()) return false;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        out[i] = x.v[i];
        out[12 + i] = y.v[i];
    }
    return true;
}

CZK_HD bool decode_g2(const uint32_t *in, uint32_t *out) {
    fp x1 = from_be(in), x0 = from_be(in + 12), y1 = from_be(in + 24), y0 = from_be(in + 36);
    if ((x1.v[11] >> 29) != 0 || !below_p(x1) || !below_p(x0) || !below_p(y1) || !below_p(y0))
        return false;
    fp2 x = {x0.to_mont(), x1.to_mont()}, y = {y0.to_mont(), y1.to_mont()};
    fp2 b = {four(), four()}; /* 4(u + 1) */
    if (y.sqr() != x.sqr() * x + b) return false;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        out[i] = x.c0.v[i];
        out[12 + i] = x.c1.v[i];
        out[24 + i] = y.c0.v[i];
        out[36 + i] = y.c1.v[i];
    }
    return true;
}

template <int G> CZK_HD bool decode_point(const uint32_t *in, uint32_t *out) {
    return G == 1 ? decode_g1(in, out) : decode_g2(in, out);
}

/* n points of group G at pts (256-byte aligned: every point 16-byte aligned), in place. */
template <int G>
__global__ void __launch_bounds__(256)
    decode_kernel(uint4 *pts, size_t n, unsigned long long *bad) {
    constexpr int Q = G == 1 ? 6 : 12; /* 16-byte words per point */
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint4 *p = pts + i * Q;
    uint32_t in[4 * Q], out[4 * Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
        uint4 v = p[q];
        in[4 * q] = v.x, in[4 * q + 1] = v.y, in[4 * q + 2] = v.z, in[4 * q + 3] = v.w;
    }
    if (!decode_point<G>(in, out)) {
        atomicMin(bad, (unsigned long long)i);
        return;
    }
#pragma unroll
    for (int q = 0; q < Q; q++)
        p[q] = make_uint4(out[4 * q], out[4 * q + 1], out[4 * q + 2], out[4 * q + 3]);
}

} // namespace

extern "C" czk_status czk_cuda_decode_points(czk_cuda_ctx *ctx, void *points, size_t n,
                                             unsigned group, uint64_t *bad, czk_err *err) {
    *bad = UINT64_MAX;
    if (group != 1 && group != 2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "decode points: group %u", group);
    if (((uintptr_t)points & 15) != 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "decode points: %p is not 16-byte aligned",
                        points);
    if (n == 0) return CZK_OK;
    if (n >= ((size_t)1 << 38))
        return czk_errf(err, CZK_ERR_INVALID_ARG, "decode points: %zu points", n);
    CZK_CU(cudaSetDevice(ctx->device), "decode points: select device");
    cudaStream_t s = ctx->stream;
    dev_buf<unsigned long long> d;
    CZK_CU(d.alloc(1, s), "decode points: index of the first bad point");
    CZK_CU(cudaMemsetAsync(d.p, 0xff, sizeof *d.p, s), "decode points: clear the index");
    if (group == 1)
        decode_kernel<1><<<grid_for(n, 256), 256, 0, s>>>((uint4 *)points, n, d.p);
    else
        decode_kernel<2><<<grid_for(n, 256), 256, 0, s>>>((uint4 *)points, n, d.p);
    CZK_LAUNCH("decode points: G%u kernel (%zu points)", group, n);
    unsigned long long h = 0;
    CZK_CU(cudaMemcpyAsync(&h, d.p, sizeof h, cudaMemcpyDeviceToHost, s),
           "decode points: read the index");
    CZK_CU(cudaStreamSynchronize(s), "decode points: G%u (%zu points)", group, n);
    *bad = h;
    return CZK_OK;
}

extern "C" czk_status czk_cuda_decode_host_check(unsigned group, const uint8_t *enc, size_t n,
                                                 czk_err *err) {
    if (group != 1 && group != 2)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "decode host check: group %u", group);
    const size_t bytes = group == 1 ? 96 : 192;
    for (size_t i = 0; i < n; i++) {
        uint32_t in[48], out[48];
        memcpy(in, enc + i * bytes, bytes);
        bool ok = group == 1 ? decode_point<1>(in, out) : decode_point<2>(in, out);
        /* the host reader: czk_gX_decode_trusted, infinity refused */
        blst_p2_affine want;
        czk_err e;
        czk_status st =
            group == 1 ? czk_g1_decode_trusted((blst_p1_affine *)&want, enc + i * bytes, bytes, &e)
                       : czk_g2_decode_trusted(&want, enc + i * bytes, bytes, &e);
        bool host_ok = st == CZK_OK && !(group == 1 ? blst_p1_affine_is_inf((blst_p1_affine *)&want)
                                                    : blst_p2_affine_is_inf(&want));
        if (ok != host_ok)
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "decode host check: G%u point %zu: the device code %s it, the host "
                            "reader %s it (%s)",
                            group, i, ok ? "accepts" : "refuses", host_ok ? "accepts" : "refuses",
                            host_ok ? "ok" : e.msg);
        if (ok && memcmp(out, &want, bytes))
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "decode host check: G%u point %zu: the device code's affine point "
                            "differs from blst's",
                            group, i);
    }
    return CZK_OK;
}

extern "C" bool czk_cuda_params_device_decode(void) {
    const char *v = getenv("CZK_PARAMS_DEVICE_DECODE");
    if (v && (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
              !strcasecmp(v, "false")))
        return false;
    return czk_cuda_device_count() > 0;
}
