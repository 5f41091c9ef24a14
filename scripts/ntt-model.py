#!/usr/bin/env python3
# Run: python3 scripts/ntt-model.py (about a minute; prints "all ok").
# CPU model of src/cuda/ntt.cu's pass structure (DIT and DIF orders, split /
# full / half twist tables, post^i and post^rev(i)), checked against a naive DFT.
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
w32 = pow(7, (r - 1) >> 32, r)
w28 = pow(w32, 16, r)
assert pow(w28, 1 << 27, r) == r - 1
def inv(x): return pow(x, r - 2, r)
def brev(x, bits): return int(bin(x)[2:].zfill(bits)[::-1], 2) if bits else 0
lo14 = lambda W: [pow(W, t, r) for t in range(1 << 14)]
def powtab(W, e):  # x^e = lo[e mod 2^14]·hi[e >> 14], as the device tables
    return pow(W, e & 0x3fff, r) * pow(W, (e >> 14) << 14, r) % r

def twist(W, mode, lo, m, s0, KS):
    rm = brev(m, KS); ex = lo * rm
    M = 1 << (s0 + KS); k = s0 + KS
    assert ex < M
    if mode == 'split':
        return powtab(W, ex << (28 - s0 - KS))
    if mode == 'full':
        return pow(W, ex << (28 - k), r)  # table entry ω_M^ex
    half_log = k - 1
    y = pow(W, (ex & ((1 << half_log) - 1)) << (28 - k), r)  # half table entry
    return (r - y) % r if (ex >> half_log) else y

def run(x, log_n, invd, order, mode, pre_c=None, post=None, post_rev=False, MAXKS=10):
    W = inv(w28) if invd else w28
    w1024 = [pow(W, j << 18, r) for j in range(512)]
    n = 1 << log_n; x = list(x)
    if order == 'NN':
        if pre_c is not None: x = [v * pre_c % r for v in x]
        x = [x[brev(i, log_n)] for i in range(n)]
    dif = order == 'NR'
    passes = (log_n + MAXKS - 1) // MAXKS
    ks_of, s0_of, s0 = [], [], 0
    for p in range(passes):
        ks_of.append(log_n // passes + (1 if p < log_n % passes else 0)); s0_of.append(s0); s0 += ks_of[-1]
    for q in range(passes):
        p = passes - 1 - q if dif else q
        KS, s0 = ks_of[p], s0_of[p]; first, last = q == 0, q == passes - 1
        GS = 1 << KS
        for gid in range(1 << (log_n - KS)):
            lo, hi = gid & ((1 << s0) - 1), gid >> s0
            idxs = [(hi << (s0 + KS)) | (m << s0) | lo for m in range(GS)]
            a = [x[i] for i in idxs]
            for m in range(GS):
                if not dif and s0 > 0: a[m] = a[m] * twist(W, mode, lo, m, s0, KS) % r
                if dif and first and pre_c is not None: a[m] = a[m] * pre_c % r
            ts = range(KS, 0, -1) if dif else range(1, KS + 1)
            for t in ts:
                h = 1 << (t - 1)
                for pos in range(GS):
                    if pos & h: continue
                    j = pos & (h - 1)
                    w = w1024[j << (10 - t)]
                    u, v = a[pos], a[pos + h]
                    if not dif:
                        v = v * w % r; a[pos], a[pos + h] = (u + v) % r, (u - v) % r
                    else:
                        a[pos], a[pos + h] = (u + v) % r, (u - v) * w % r
            for m in range(GS):
                if dif and s0 > 0: a[m] = a[m] * twist(W, mode, lo, m, s0, KS) % r
                if last and post is not None:
                    i = idxs[m]; pe = brev(i, log_n) if post_rev else i
                    a[m] = a[m] * powtab(post, pe) % r
                x[idxs[m]] = a[m]
    return x

def dft(x, log_n, invd):
    n = 1 << log_n; w = pow(w28, 1 << (28 - log_n), r)
    if invd: w = inv(w)
    wp = [pow(w, k, r) for k in range(n)]
    return [sum(x[j] * wp[(i * j) % n] for j in range(n)) % r for i in range(n)]

import random, sys
random.seed(1)
g = 7
for log_n, MK in [(l, 10) for l in range(1, 12)] + [(l, 3) for l in range(4, 11)] + [(l, 4) for l in (9, 11)]:
    n = 1 << log_n
    x = [random.randrange(r) for _ in range(n)]
    big = False
    if big:  # only check a few outputs of the naive DFT
        pass
    for invd in (0, 1):
        want = dft(x, log_n, invd) if not big else None
        for mode in ('split', 'full', 'half'):
            if mode == 'full' and log_n > 18: continue
            got_nn = run(x, log_n, invd, 'NN', mode, MAXKS=MK)
            got_nr = run(x, log_n, invd, 'NR', mode, MAXKS=MK)
            got_rn = run([x[brev(i, log_n)] for i in range(n)], log_n, invd, 'RN', mode, MAXKS=MK)
            if big:
                want = got_nn  # compare orders with each other at big sizes (split checked small)
                # spot-check a few outputs against the DFT
                w = pow(w28, 1 << (28 - log_n), r); w = inv(w) if invd else w
                for i in random.sample(range(n), 3):
                    assert got_nn[i] == sum(x[j] * pow(w, i * j, r) for j in range(n)) % r
            assert got_nn == want, (log_n, invd, mode, 'NN')
            assert got_rn == want, (log_n, invd, mode, 'RN')
            assert [got_nr[brev(i, log_n)] for i in range(n)] == want, (log_n, invd, mode, 'NR')
    # H-style: paired vs natural, coset scaling and 1/N
    ninv = inv(n)
    nat = run(x, log_n, 1, 'NN', 'half', pre_c=ninv, post=g, MAXKS=MK)
    nat = run(nat, log_n, 0, 'NN', 'half', MAXKS=MK)
    par = run(x, log_n, 1, 'NR', 'half', pre_c=ninv, post=g, post_rev=True, MAXKS=MK)
    par = run(par, log_n, 0, 'RN', 'half', MAXKS=MK)
    if not big:
        coeffs = [c * ninv % r for c in dft(x, log_n, 1)]
        want = dft([c * pow(g, j, r) % r for j, c in enumerate(coeffs)], log_n, 0)
        assert nat == want, ('H natural', log_n)
    assert par == nat, ('H paired', log_n)
    print('ok', log_n, flush=True)
print('all ok')
