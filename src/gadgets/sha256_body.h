/*
 * The body of sha256_compression_function (bellpepper gadgets/sha256.rs;
 * spec §4.5), written once and instantiated by sha256.c for two word types:
 * czk_u32 (RECORD / CHECK: Booleans with linear combinations) and the
 * witness word (values and masks only). Included with
 *
 *   W           the word type
 *   CTX         the context type
 *   OP(name)    the prefixed name of an operation on W:
 *               constant(W *, uint32_t), rotr(W *, const W *, unsigned),
 *               shr(...), xor(CTX *, W *, const W *, const W *),
 *               ch / maj(CTX *, W *, const W *, const W *, const W *),
 *               addmany(CTX *, W *, const W *const *, unsigned),
 *               push(CTX *, const char *, unsigned) / pop(CTX *) (namespaces),
 *               finish(CTX *) (MultiEq flush)
 *
 * The order of every operation below is the R1CS order: do not reorder.
 */

static void OP(compress)(CTX *cx, const W win[16], const W st[8], W out[8]) {
    W w[64];
    memcpy(w, win, 16 * sizeof(W));

    for (unsigned i = 16; i < 64; i++) {
        W s0, s1, t;
        OP(push)(cx, "w extension %u", i);
        OP(rotr)(&s0, &w[i - 15], 7);
        OP(rotr)(&t, &w[i - 15], 18);
        OP (xor)(cx, &s0, &s0, &t);
        OP(shr)(&t, &w[i - 15], 3);
        OP (xor)(cx, &s0, &s0, &t);
        OP(rotr)(&s1, &w[i - 2], 17);
        OP(rotr)(&t, &w[i - 2], 19);
        OP (xor)(cx, &s1, &s1, &t);
        OP(shr)(&t, &w[i - 2], 10);
        OP (xor)(cx, &s1, &s1, &t);
        const W *ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
        OP(addmany)(cx, &w[i], ops, 4);
        OP(pop)(cx);
    }

    /* a and e are "Maybe": concrete (n == 0) or a deferred list of addends. */
    W a = st[0], b = st[1], c = st[2], d = st[3];
    W e = st[4], f = st[5], g = st[6], h = st[7];
    W a_list[8], e_list[8];
    unsigned na = 0, ne = 0;
    const W *ops[8];

    for (unsigned i = 0; i < 64; i++) {
        W new_e, new_a, s1, ch, s0, maj, t, k;
        OP(push)(cx, "compression round %u", i);

        if (ne) {
            for (unsigned j = 0; j < ne; j++)
                ops[j] = &e_list[j];
            OP(addmany)(cx, &new_e, ops, ne);
        } else {
            new_e = e;
        }
        OP(rotr)(&s1, &new_e, 6);
        OP(rotr)(&t, &new_e, 11);
        OP (xor)(cx, &s1, &s1, &t);
        OP(rotr)(&t, &new_e, 25);
        OP (xor)(cx, &s1, &s1, &t);
        OP(ch)(cx, &ch, &new_e, &f, &g);
        OP(constant)(&k, czk_sha256_k[i]);

        if (na) {
            for (unsigned j = 0; j < na; j++)
                ops[j] = &a_list[j];
            OP(addmany)(cx, &new_a, ops, na);
        } else {
            new_a = a;
        }
        OP(rotr)(&s0, &new_a, 2);
        OP(rotr)(&t, &new_a, 13);
        OP (xor)(cx, &s0, &s0, &t);
        OP(rotr)(&t, &new_a, 22);
        OP (xor)(cx, &s0, &s0, &t);
        OP(maj)(cx, &maj, &new_a, &b, &c);

        /* temp1 = [h, S1, ch, K[i], w[i]]; e = temp1 + [d]; a = temp1 + [S0, maj] */
        a_list[0] = e_list[0] = h;
        a_list[1] = e_list[1] = s1;
        a_list[2] = e_list[2] = ch;
        a_list[3] = e_list[3] = k;
        a_list[4] = e_list[4] = w[i];
        e_list[5] = d;
        a_list[5] = s0;
        a_list[6] = maj;
        ne = 6;
        na = 7;
        h = g;
        g = f;
        f = new_e;
        d = c;
        c = b;
        b = new_a;
        OP(pop)(cx);
    }

    /* h0 = a + H0 (8 operands), h1..h3, h4 = e + H4 (7), h5..h7 */
    W o[8];
    const W *mid[8] = {NULL, &b, &c, &d, NULL, &f, &g, &h};
    for (unsigned r = 0; r < 8; r++) {
        OP(push)(cx, "new h%u", r);
        if (r == 0 || r == 4) {
            W *list = r == 0 ? a_list : e_list;
            unsigned n = r == 0 ? na : ne;
            list[n++] = st[r];
            for (unsigned j = 0; j < n; j++)
                ops[j] = &list[j];
            OP(addmany)(cx, &o[r], ops, n);
        } else {
            const W *pair[2] = {&st[r], mid[r]};
            OP(addmany)(cx, &o[r], pair, 2);
        }
        OP(pop)(cx);
    }
    OP(finish)(cx);
    memcpy(out, o, sizeof o);
}
