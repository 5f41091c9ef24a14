/*
 * The batch-affine bucket accumulation (msm_affine.cuh) on the host: the
 * device's per-thread bodies called thread by thread, kernel by kernel, in
 * the device's order (czk_cuda_msm_affine_emulate, and the window sum by
 * levels, czk_cuda_msm_window_sum_emulate; for tests without a GPU).
 * The block-wide scan of the batch inversion runs step by step as on the
 * device (every thread's new values, then the writes).
 */
#include "cuda/internal.h"
#include "msm_affine.cuh"

#include <stdlib.h>
#include <string.h>
#include <vector>

using namespace czkg;

namespace {

/* Fills v with a byte pattern that is no valid field element: reads of unwritten slots show. */
template <class T> void poison(std::vector<T> &v) {
    memset(v.data(), 0xa5, v.size() * sizeof(T));
}

/* ba_inv_kernel, block by block. */
template <class F>
void emulate_inv(F *tot, F *tmp, uint32_t total, uint32_t T, uint32_t group, uint32_t G) {
    constexpr uint32_t NT = ba_inv_threads<F>();
    const uint32_t count = ba_strips_used(total, T, group);
    std::vector<F> pre(NT), suf(NT), na(NT), ns(NT);
    std::vector<ba_run> run(NT);
    for (uint32_t g = 0; g < G; g++) {
        for (uint32_t tid = 0; tid < NT; tid++) {
            run[tid] = ba_inv_run(count, G, g, NT, tid);
            pre[tid] = suf[tid] = ba_inv_up(tot, tmp, run[tid]);
        }
        for (uint32_t off = 1; off < NT; off <<= 1) {
            for (uint32_t tid = 0; tid < NT; tid++)
                ba_scan_step(pre.data(), suf.data(), NT, tid, off, na[tid], ns[tid]);
            pre = na;
            suf = ns;
        }
        const F zi = pre[NT - 1].inv_binary();
        for (uint32_t tid = 0; tid < NT; tid++)
            ba_inv_down(tot, tmp, run[tid], ba_scan_inv(pre.data(), suf.data(), NT, tid, zi));
    }
}

/* The levels of ba_state::run_levels on the host: np points in nb buckets (or groups) of m0[b]
 * points from first[b], level 0 reading pts[idx[i]] (negated where keys[i] & 1); the buckets that
 * took part end with their <= K points in fin[b·K + j]. */
template <class F>
czk_status emulate_levels(const affine<F> *pts, const uint32_t *keys, const uint32_t *idx,
                          const uint32_t *first, const uint32_t *m0, uint32_t np, uint32_t nb,
                          uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks,
                          affine<F> *fin, czk_err *err) {
    using A = affine<F>;
    uint32_t max_m = 0;
    for (uint32_t b = 0; b < nb; b++)
        if (m0[b] > max_m) max_m = m0[b];
    /* ba_state::init with the strip forced */
    uint64_t bufsz[2] = {1, 1}, pre_n = 1, tot_n = 1;
    for (uint32_t l = 0; l < 32; l++) {
        const uint64_t bd = ba_bound(np, nb, K, l), S = ba_strips(bd, strip, group);
        if (bd > bufsz[l & 1]) bufsz[l & 1] = bd;
        if (S * strip > pre_n) pre_n = S * strip;
        if (S > tot_n) tot_n = S;
    }
    std::vector<A> buf0(bufsz[0]), buf1(bufsz[1]);
    std::vector<F> pre(pre_n), tot(tot_n), tmp(tot_n);
    std::vector<uint32_t> cnt((size_t)nb + 1), os0((size_t)nb + 1), os1((size_t)nb + 1);
    poison(buf0), poison(buf1), poison(pre), poison(tot), poison(tmp);
    A *buf[2] = {buf0.data(), buf1.data()};
    uint32_t *os[2] = {os0.data(), os1.data()};
    const uint32_t levels = ba_levels(max_m, K);
    for (uint32_t l = 0; l < levels; l++) {
        const uint64_t bd = ba_bound(np, nb, K, l);
        const uint32_t S = (uint32_t)ba_strips(bd, strip, group);
        for (uint32_t b = 0; b <= nb; b++)
            cnt[b] = b < nb ? ba_outputs(m0[b], K, l) : 0;
        uint32_t sum = 0;
        for (uint32_t b = 0; b <= nb; b++) {
            os[l & 1][b] = sum;
            sum += cnt[b];
        }
        if (sum > bd)
            return czk_errf(err, CZK_ERR_INTERNAL,
                            "msm affine emulate: level %u has %u outputs, above its bound %llu", l,
                            sum, (unsigned long long)bd);
        ba_level<F> L;
        L.bases = pts;
        L.sidx = idx;
        L.skeys = keys;
        L.in = l ? buf[(l - 1) & 1] : nullptr;
        L.out = buf[l & 1];
        L.fin = fin;
        L.m0 = m0;
        L.in_start = l ? os[(l - 1) & 1] : first;
        L.out_start = os[l & 1];
        L.pre = pre.data();
        L.tot = tot.data();
        L.B = nb, L.K = K, L.level = l, L.T = strip, L.S = S, L.G = group;
        for (uint32_t t = 0; t < S; t++)
            ba_forward(L, t);
        emulate_inv<F>(tot.data(), tmp.data(), sum, strip, group, blocks);
        for (uint32_t t = 0; t < S; t++)
            ba_backward(L, t);
    }
    return CZK_OK;
}

/* The arguments both emulations take; the window's bucket bounds and sizes (msm_bounds,
 * ba_sizes_kernel). */
czk_status emulate_check(const uint32_t *skeys, const uint32_t *sidx, size_t n64, uint32_t B,
                         uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks,
                         std::vector<uint32_t> &start, std::vector<uint32_t> &m0, czk_err *err) {
    if (n64 >= (1ull << 31) || B == 0 || B > (1u << 30) || K == 0 || strip == 0 || group == 0 ||
        group > 1024 || blocks == 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "msm affine emulate: n = %zu, B = %u, K = %u, strip = %u, group = %u "
                        "(1..1024), blocks = %u",
                        n64, B, K, strip, group, blocks);
    const uint32_t n = (uint32_t)n64;
    for (uint32_t i = 0; i < n; i++)
        if ((skeys[i] >> 1) > B || (i && skeys[i] < skeys[i - 1]) || sidx[i] >= n)
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "msm affine emulate: entry %u (key %u, index %u): keys must be sorted "
                            "and at most 2B + 1, indices below n",
                            i, skeys[i], sidx[i]);
    std::vector<uint32_t> end(B, 0);
    start.assign(B, 0);
    m0.resize(B);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t m = skeys[i] >> 1;
        if (!m) continue;
        if (!i || (skeys[i - 1] >> 1) != m) start[m - 1] = i;
        end[m - 1] = i + 1;
    }
    for (uint32_t b = 0; b < B; b++)
        m0[b] = end[b] - start[b];
    return CZK_OK;
}

/* The window over F (G1: ba_fp, G2: ba_fp2); HA, HP: blst's affine and projective types. */
template <class F, class HA, class HP>
czk_status emulate(const HA *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n64,
                   uint32_t B, uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks,
                   HP *buckets, czk_err *err) {
    using A = affine<F>;
    static_assert(sizeof(A) == sizeof(HA), "layout");
    static_assert(sizeof(jacobian<F>) == sizeof(HP), "layout");
    try {
        std::vector<uint32_t> start, m0;
        czk_status st = emulate_check(skeys, sidx, n64, B, K, strip, group, blocks, start, m0, err);
        if (st) return st;
        std::vector<A> fin((size_t)B * K);
        poison(fin);
        const A *bp = (const A *)bases;
        st = emulate_levels<F>(bp, skeys, sidx, start.data(), m0.data(), (uint32_t)n64, B, K, strip,
                               group, blocks, fin.data(), err);
        if (st) return st;
        ba_final_args<F> fa;
        memset(&fa, 0, sizeof fa);
        fa.L0.bases = bp;
        fa.L0.sidx = sidx;
        fa.L0.skeys = skeys;
        fa.L0.m0 = m0.data();
        fa.L0.in_start = start.data();
        fa.L0.B = B;
        fa.L0.K = K;
        fa.fin = fin.data();
        for (uint32_t b = 0; b < B; b++) {
            jacobian<F> j = ba_final(fa, b).to_jacobian();
            memcpy(&buckets[b], &j, sizeof j);
        }
    } catch (const std::bad_alloc &) {
        return czk_errf(err, CZK_ERR_NOMEM, "msm affine emulate: host memory (n = %zu, B = %u)",
                        n64, B);
    }
    return CZK_OK;
}

/* The window sum by levels (ba_state::window_sum) over F. */
template <class F, class HA, class HP>
czk_status emulate_window_sum(const HA *bases, const uint32_t *skeys, const uint32_t *sidx,
                              size_t n64, uint32_t e, uint32_t strip, uint32_t group,
                              uint32_t blocks, HP *sum, czk_err *err) {
    using A = affine<F>;
    static_assert(sizeof(A) == sizeof(HA), "layout");
    static_assert(sizeof(jacobian<F>) == sizeof(HP), "layout");
    if (e > 24)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "msm affine emulate: 2^%u buckets (at most 2^24)",
                        e);
    const uint32_t B = 1u << e;
    try {
        std::vector<uint32_t> start, m0;
        czk_status st = emulate_check(skeys, sidx, n64, B, 1, strip, group, blocks, start, m0, err);
        if (st) return st;
        /* the buckets to one point each */
        std::vector<A> fin(B);
        poison(fin);
        const A *bp = (const A *)bases;
        st = emulate_levels<F>(bp, skeys, sidx, start.data(), m0.data(), (uint32_t)n64, B, 1, strip,
                               group, blocks, fin.data(), err);
        if (st) return st;
        ba_level<F> L0;
        memset(&L0, 0, sizeof L0);
        L0.bases = bp;
        L0.sidx = sidx;
        L0.skeys = skeys;
        L0.fin = fin.data();
        L0.m0 = m0.data();
        L0.in_start = start.data();
        L0.B = B, L0.K = 1;
        for (uint32_t b = 0; b < B; b++)
            ba_bucket_point(L0, b);
        /* the split's lists (ba_tu_lists_kernel), its levels, its running sums */
        const uint32_t G = ba_tu_groups(e);
        std::vector<uint32_t> tidx(2 * (size_t)B), tkeys(2 * (size_t)B, 0), tm0(G), tfirst(G);
        for (uint32_t i = 0; i < 2 * B; i++)
            tidx[i] = ba_tu_index(e, i);
        for (uint32_t g = 0; g < G; g++)
            ba_tu_group(e, g, tm0[g], tfirst[g]);
        std::vector<A> tfin((size_t)G * BA_TU_K);
        poison(tfin);
        st = emulate_levels<F>(fin.data(), tkeys.data(), tidx.data(), tfirst.data(), tm0.data(),
                               2 * B, G, BA_TU_K, strip, group, blocks, tfin.data(), err);
        if (st) return st;
        xyzz<F> acc = xyzz<F>::inf();
        const uint32_t parts = ba_tu_threads(e) + 3; /* a few past the window's own */
        for (uint32_t t = 0; t < parts; t++)
            acc.add(ba_tu_sum(fin.data(), tfin.data(), e, t));
        jacobian<F> j = acc.to_jacobian();
        memcpy(sum, &j, sizeof j);
    } catch (const std::bad_alloc &) {
        return czk_errf(err, CZK_ERR_NOMEM, "msm affine emulate: host memory (n = %zu, B = %u)",
                        n64, B);
    }
    return CZK_OK;
}

} // namespace

extern "C" czk_status czk_cuda_msm_affine_emulate(const blst_p1_affine *bases,
                                                  const uint32_t *skeys, const uint32_t *sidx,
                                                  size_t n, uint32_t B, uint32_t K, uint32_t strip,
                                                  uint32_t group, uint32_t blocks, blst_p1 *buckets,
                                                  czk_err *err) {
    return emulate<ba_fp>(bases, skeys, sidx, n, B, K, strip, group, blocks, buckets, err);
}

extern "C" czk_status czk_cuda_msm_affine_emulate_g2(
    const blst_p2_affine *bases, const uint32_t *skeys, const uint32_t *sidx, size_t n, uint32_t B,
    uint32_t K, uint32_t strip, uint32_t group, uint32_t blocks, blst_p2 *buckets, czk_err *err) {
    return emulate<ba_fp2>(bases, skeys, sidx, n, B, K, strip, group, blocks, buckets, err);
}

extern "C" czk_status czk_cuda_msm_window_sum_emulate(const blst_p1_affine *bases,
                                                      const uint32_t *skeys, const uint32_t *sidx,
                                                      size_t n, uint32_t e, uint32_t strip,
                                                      uint32_t group, uint32_t blocks, blst_p1 *sum,
                                                      czk_err *err) {
    return emulate_window_sum<ba_fp>(bases, skeys, sidx, n, e, strip, group, blocks, sum, err);
}

extern "C" czk_status
czk_cuda_msm_window_sum_emulate_g2(const blst_p2_affine *bases, const uint32_t *skeys,
                                   const uint32_t *sidx, size_t n, uint32_t e, uint32_t strip,
                                   uint32_t group, uint32_t blocks, blst_p2 *sum, czk_err *err) {
    return emulate_window_sum<ba_fp2>(bases, skeys, sidx, n, e, strip, group, blocks, sum, err);
}
