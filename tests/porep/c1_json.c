/* CZK_TEST_LABELS: unit */
/*
 * The C1 JSON parser, writer and cuzk envelope: round trips, the exact
 * serde_json text of known parts, registered-proof names, and one refusal
 * per malformed-input class, each with the JSON path in its message.
 *
 * Malformed inputs are made from the text of a consistent 2KiB C1
 * (c1_sector.h) whose value of interest was first set to a marker,
 * [1,2,...,32], unique in the document, then replaced in the text.
 */
#include "support.h"

#include "c1_sector.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

static const uint8_t TICKET[32] = {7, 1, 2, 3};
static const uint8_t SEED[32] = {9, 8, 7, 6, 5};

static czk_c1 *sealed(uint32_t id) {
    ts_sector s;
    assert_true(ts_seal(&s, id, 1000, 42, TICKET, SEED, 99 + id, NULL, NULL));
    czk_c1 *c1 = ts_c1(&s);
    ts_free(&s);
    assert_non_null(c1);
    return c1;
}

/* noinline: gcc 12 takes the out-parameter for a dangling pointer once inlined */
__attribute__((noinline)) static char *to_json(const czk_c1 *c1, size_t *len) {
    char *json;
    czk_err err;
    czk_assert_ok(czk_c1_to_json(c1, &json, len, &err), &err);
    assert_int_equal(strlen(json), *len); /* NUL-terminated, no NUL inside */
    return json;
}

/* ---- deep equality ---- */

static bool merkle_eq(const czk_merkle_proof *a, const czk_merkle_proof *b) {
    if (a->kind != b->kind || a->num_levels != b->num_levels ||
        memcmp(a->levels_in_part, b->levels_in_part, sizeof a->levels_in_part) ||
        memcmp(&a->root, &b->root, 32) || memcmp(&a->leaf, &b->leaf, 32))
        return false;
    size_t nsib = 0;
    for (uint32_t l = 0; l < a->num_levels; l++) {
        if (a->arity[l] != b->arity[l] || a->index[l] != b->index[l]) return false;
        nsib += a->arity[l] - 1u;
    }
    return memcmp(a->siblings, b->siblings, nsib * 32) == 0;
}

static bool column_eq(const czk_column_proof *a, const czk_column_proof *b) {
    return a->index == b->index && a->num_rows == b->num_rows &&
           !memcmp(a->rows, b->rows, a->num_rows * 32u) && merkle_eq(&a->inclusion, &b->inclusion);
}

static bool label_eq(const czk_labeling_proof *a, const czk_labeling_proof *b) {
    return a->layer_index == b->layer_index && a->node == b->node &&
           a->num_parents == b->num_parents &&
           !memcmp(a->parents, b->parents, a->num_parents * 32u);
}

static bool c1_eq(const czk_c1 *a, const czk_c1 *b) {
    if (a->registered_proof != b->registered_proof || a->num_partitions != b->num_partitions ||
        a->challenges_per_partition != b->challenges_per_partition ||
        memcmp(&a->comm_r, &b->comm_r, 32) || memcmp(&a->comm_d, &b->comm_d, 32) ||
        memcmp(&a->replica_id, &b->replica_id, 32) || memcmp(&a->seed, &b->seed, 32) ||
        memcmp(&a->ticket, &b->ticket, 32))
        return false;
    for (size_t n = 0; n < (size_t)a->num_partitions * a->challenges_per_partition; n++) {
        const czk_vanilla_proof *x = &a->proofs[n], *y = &b->proofs[n];
        if (!merkle_eq(&x->comm_d_proof, &y->comm_d_proof) ||
            !merkle_eq(&x->comm_r_last_proof, &y->comm_r_last_proof) ||
            !column_eq(&x->c_x, &y->c_x) || x->num_labeling != y->num_labeling ||
            !label_eq(&x->encoding, &y->encoding))
            return false;
        for (int i = 0; i < 6; i++)
            if (!column_eq(&x->drg_parents[i], &y->drg_parents[i])) return false;
        for (int i = 0; i < 8; i++)
            if (!column_eq(&x->exp_parents[i], &y->exp_parents[i])) return false;
        for (uint32_t i = 0; i < x->num_labeling; i++)
            if (!label_eq(&x->labeling[i], &y->labeling[i])) return false;
    }
    return true;
}

/* ---- round trips ---- */

static void round_trip(const czk_c1 *c1) {
    size_t len, len2;
    char *json = to_json(c1, &len);
    czk_c1 *back;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)json, len, &err), &err);
    assert_true(c1_eq(c1, back)); /* parse(write(x)) = x */
    char *json2 = to_json(back, &len2);
    assert_int_equal(len, len2); /* write(parse(y)) = y */
    assert_memory_equal(json, json2, len);
    free(json2);
    czk_c1_free(back);
    free(json);
}

static void test_round_trip_2kib(void **state) {
    (void)state;
    static const uint32_t ids[] = {0, 5, 10, 15};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        czk_c1 *c1 = sealed(ids[i]);
        round_trip(c1);
        czk_c1_free(c1);
    }
}

/* A 2KiB C1 with its Merkle proofs re-cut as Sub and Top proofs (8-8 and 8-8 with a last
 * level of arity 1 is not a tree: the parts are checked by the shape check, the text by the
 * parser), to reach the Sub and Top forms without a 38 MB 32GiB document. */
static void test_round_trip_sub_top_text(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    czk_merkle_proof *p = &c1->proofs[1].comm_r_last_proof;
    p->kind = CZK_MERKLE_SUB;
    p->levels_in_part[0] = 1;
    p->levels_in_part[1] = 1;
    size_t len;
    char *json = to_json(c1, &len);
    /* serde's SubProof field order: base_proof, sub_proof, root, leaf */
    assert_non_null(strstr(json,
                           "\"comm_r_last_proof\":{\"data\":{\"Sub\":{\"base_proof\":{\"path\":"
                           "[{\"hashes\":[["));
    assert_non_null(strstr(json, "}]},\"sub_proof\":{\"path\":[{\"hashes\":[["));
    czk_c1 *back;
    czk_err err;
    /* parsed in full, then refused by the shape check with the path */
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)json, len, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data: "
                                 "a Sub proof, the 2KiB TreeR needs Single");
    free(json);
    p->kind = CZK_MERKLE_TOP;
    p->levels_in_part[0] = 1;
    p->levels_in_part[1] = 0;
    p->levels_in_part[2] = 1;
    json = to_json(c1, &len);
    assert_non_null(
        strstr(json, "\"sub_proof\":{\"path\":[]},\"top_proof\":{\"path\":[{\"hashes\":"));
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)json, len, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_r_last_proof.data: "
                                 "a Top proof, the 2KiB TreeR needs Single");
    free(json);
    czk_c1_free(c1);
}

/* Expected text written from the serde derive order (header of porep_c1.h, spec §6). */
static void test_writer_text(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    memset(c1->ticket.b, 0, 32);
    c1->ticket.b[0] = 255;
    c1->ticket.b[31] = 10;
    c1->proofs[0].c_x.index = 4294967295u;
    c1->proofs[0].labeling[0].node = 18446744073709551615ull;
    size_t len;
    char *json = to_json(c1, &len);
    static const char head[] = "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{"
                               "\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":{"
                               "\"root\":[";
    assert_memory_equal(json, head, sizeof head - 1);
    static const char tail[] = ",\"ticket\":[255,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
                               "0,0,0,0,0,10]}";
    assert_string_equal(json + len - (sizeof tail - 1), tail);
    assert_non_null(strstr(json, "\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":"
                                 "4294967295,\"rows\":[["));
    assert_non_null(strstr(json, "]],\"_h\":null},\"inclusion_proof\":{\"data\":{\"Single\":{"));
    assert_non_null(strstr(json, "\"labeling_proofs\":[{\"parents\":[["));
    assert_non_null(
        strstr(json, "]],\"layer_index\":1,\"node\":18446744073709551615},{\"parents\""));
    assert_non_null(strstr(json, "],\"encoding_proof\":{\"parents\":[["));
    assert_non_null(strstr(json, "\"drg_parents\":[{\"column\":{\"index\":"));
    assert_non_null(strstr(json, "\"exp_parents\":[{\"column\":{\"index\":"));
    assert_null(strchr(json, ' '));
    assert_null(strchr(json, '\n'));
    free(json);
    czk_c1_free(c1);
}

/* Whitespace and field order are free in JSON; the writer's form is canonical. */
static void test_parse_whitespace_and_order(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    size_t len;
    char *json = to_json(c1, &len);
    /* put registered_proof last and add white space after every comma */
    const char *rp = "\"registered_proof\":\"StackedDrg2KiBV1_1\",";
    assert_memory_equal(json + 1, rp, strlen(rp));
    size_t rpl = strlen(rp);
    char *alt = malloc(2 * len + 64);
    size_t n = 0;
    alt[n++] = '{';
    for (size_t i = 1 + rpl; i < len - 1; i++) {
        alt[n++] = json[i];
        if (json[i] == ',') alt[n++] = '\n';
    }
    n += (size_t)sprintf(alt + n, " , \"registered_proof\" : \"StackedDrg2KiBV1_1\" }\n");
    czk_c1 *back;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)alt, n, &err), &err);
    assert_true(c1_eq(c1, back));
    size_t len2;
    char *json2 = to_json(back, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(json, json2, len);
    free(json2);
    czk_c1_free(back);
    /* but one document only */
    static const char *const tails[] = {" {}", "x", "[]", ",", "}"};
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        memcpy(alt, json, len);
        memcpy(alt + len, tails[i], strlen(tails[i]));
        assert_int_equal(czk_c1_parse(&back, (const uint8_t *)alt, len + strlen(tails[i]), &err),
                         CZK_ERR_FORMAT);
        assert_non_null(strstr(err.msg, "trailing garbage"));
        assert_null(back);
    }
    free(alt);
    free(json);
    czk_c1_free(c1);
}

static void test_registered_proof_names(void **state) {
    (void)state;
    /* rust-filecoin-proofs-api registry.rs, enum order = id */
    static const char *const names[20] = {"StackedDrg2KiBV1",
                                          "StackedDrg8MiBV1",
                                          "StackedDrg512MiBV1",
                                          "StackedDrg32GiBV1",
                                          "StackedDrg64GiBV1",
                                          "StackedDrg2KiBV1_1",
                                          "StackedDrg8MiBV1_1",
                                          "StackedDrg512MiBV1_1",
                                          "StackedDrg32GiBV1_1",
                                          "StackedDrg64GiBV1_1",
                                          "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
                                          "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
                                          "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
                                          "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
                                          "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
                                          "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep"};
    for (uint32_t i = 0; i < 20; i++) {
        assert_string_equal(czk_registered_proof_name(i), names[i]);
        assert_int_equal(czk_registered_proof_from_name(names[i]), (int)i);
    }
    assert_null(czk_registered_proof_name(20));
    assert_int_equal(czk_registered_proof_from_name("StackedDrg2KiBV1_2"), -1);
    assert_int_equal(czk_registered_proof_from_name(""), -1);
    czk_err err;
    assert_null(czk_c1_create(20, 1, 1, &err));
    assert_int_equal(err.code, CZK_ERR_INVALID_ARG);
}

/* ---- malformed input ---- */

#define MARK                                                                                       \
    "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32]"

static void set_marker(czk_domain *d) {
    for (int i = 0; i < 32; i++)
        d->b[i] = (uint8_t)(i + 1);
}

/* The marker with its first value replaced: head ‖ ",2,3,...,32]". */
static const char *m2(const char *head) {
    static char buf[256];
    snprintf(buf, sizeof buf, "%s%s", head, MARK + 2);
    return buf;
}

/* The C1's text with the first occurrence of `from` replaced by `to`. */
static char *replaced(const czk_c1 *c1, const char *from, const char *to, size_t *out_len) {
    size_t len;
    char *json = to_json(c1, &len);
    char *at = strstr(json, from);
    if (!at) fail_msg("\"%s\" not in the C1 text", from);
    size_t fl = strlen(from), tl = strlen(to);
    char *m = malloc(len - fl + tl + 1);
    size_t pre = (size_t)(at - json);
    memcpy(m, json, pre);
    memcpy(m + pre, to, tl);
    memcpy(m + pre + tl, at + fl, len - pre - fl);
    *out_len = len - fl + tl;
    m[*out_len] = 0;
    free(json);
    return m;
}

/* Replaces the first occurrence of `from` in the C1's text by `to`; expects the refusal. */
static void expect_text(const czk_c1 *c1, const char *from, const char *to, czk_status code,
                        const char *msg) {
    size_t ml;
    char *m = replaced(c1, from, to, &ml);
    czk_c1 *back = (czk_c1 *)1;
    czk_err err;
    czk_status st = czk_c1_parse(&back, (const uint8_t *)m, ml, &err);
    if (st != code || !strstr(err.msg, msg))
        fail_msg("\"%s\" -> \"%s\": expected %s with \"%s\", got %s \"%s\"", from, to,
                 czk_status_name(code), msg, czk_status_name(st), st ? err.msg : "");
    assert_null(back);
    free(m);
}

#define P01 "vanilla_proofs.StackedDrg2KiBV1[0][1]"

static void test_refusals_domains(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    set_marker(&c1->proofs[1].comm_d_proof.siblings[3]);
    const char *h = P01 ".comm_d_proofs.data.Single.path.path[3].hashes[0]";
    char want[512];
    snprintf(want, sizeof want, "%s: expected an array of 32 integers, found 31", h);
    expect_text(c1, ",31,32]", ",31]", CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s: expected an array of 32 integers, found more", h);
    expect_text(c1, ",31,32]", ",31,32,33]", CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[1]: expected an integer 0..255, found 256", h);
    expect_text(c1, MARK, m2("[1,256"), CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[0]: expected an integer 0..255, found -1", h);
    expect_text(c1, MARK, m2("[-1"), CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[0]: expected an integer 0..255, found 1.0", h);
    expect_text(c1, MARK, m2("[1.0"), CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[0]: expected an integer 0..255, found 1e2", h);
    expect_text(c1, MARK, m2("[1e2"), CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[0]: expected an integer 0..255, found a string", h);
    expect_text(c1, MARK, m2("[\"1\""), CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s: expected an array of 32 integers, found a string", h);
    expect_text(c1, MARK, "\"0x01\"", CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s: expected an array of 32 integers, found null", h);
    expect_text(c1, MARK, "null", CZK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s[0]: expected an integer 0..255, found an array", h);
    expect_text(c1, MARK, m2("[[1]"), CZK_ERR_FORMAT, want);
    /* a value ≥ r: r itself, LE bytes */
    snprintf(want, sizeof want, "%s: value is not below the field modulus r", h);
    expect_text(c1, MARK,
                "[1,0,0,0,255,255,255,255,254,91,254,255,2,164,189,83,5,216,161,9,8,216,57,51,72,"
                "125,157,41,83,167,237,115]",
                CZK_ERR_FORMAT, want);
    /* r − 1 is fine as a value (the path then fails to verify, which is the pre-check's job) */
    size_t len;
    char *m = replaced(c1, MARK,
                       "[0,0,0,0,255,255,255,255,254,91,254,255,2,164,189,83,5,216,161,9,8,216,57,"
                       "51,72,125,157,41,83,167,237,115]",
                       &len);
    czk_c1 *back;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)m, len, &err), &err);
    assert_int_equal(back->proofs[1].comm_d_proof.siblings[3].b[31], 115);
    czk_c1_free(back);
    free(m);
    czk_c1_free(c1);

    /* the top-level values: which must be canonical, which must not be zero */
    static const struct {
        size_t off;
        const char *name;
        bool canonical;
    } top[] = {{offsetof(czk_c1, comm_r), "comm_r", true},
               {offsetof(czk_c1, comm_d), "comm_d", true},
               {offsetof(czk_c1, replica_id), "replica_id", true},
               {offsetof(czk_c1, seed), "seed", false},
               {offsetof(czk_c1, ticket), "ticket", false}};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        c1 = sealed(5);
        set_marker((czk_domain *)((char *)c1 + top[i].off));
        char big[160];
        snprintf(big, sizeof big, "[%s]",
                 "255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,"
                 "255,255,255,255,255,255,255,255,255,255,255,255,255");
        if (top[i].canonical) {
            snprintf(want, sizeof want, "%s: value is not below the field modulus r", top[i].name);
            expect_text(c1, MARK, big, CZK_ERR_FORMAT, want);
        } else {
            /* seed and ticket are bytes, not field elements: accepted */
            m = replaced(c1, MARK, big, &len);
            czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)m, len, &err), &err);
            assert_int_equal(((const czk_domain *)((char *)back + top[i].off))->b[31], 255);
            czk_c1_free(back);
            free(m);
        }
        snprintf(want, sizeof want, "%s: all zero (refused, as cuzk does)", top[i].name);
        if (i != 2 && i != 4)
            expect_text(c1, MARK,
                        "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
                        CZK_ERR_FORMAT, want);
        czk_c1_free(c1);
    }
}

static void test_refusals_fields(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    set_marker(&c1->proofs[1].comm_d_proof.leaf);
    set_marker(&c1->proofs[1].drg_parents[4].rows[1]);
    /* missing, unknown, duplicate fields */
    expect_text(c1, ",\"leaf\":" MARK, "", CZK_ERR_FORMAT,
                P01 ".comm_d_proofs.data.Single: missing field \"leaf\"");
    expect_text(c1, "\"leaf\":" MARK, "\"leaf\":" MARK ",\"leaf\":" MARK, CZK_ERR_FORMAT,
                P01 ".comm_d_proofs.data.Single: duplicate field \"leaf\"");
    expect_text(c1, "\"leaf\":" MARK, "\"leaf\":" MARK ",\"lead\":1", CZK_ERR_FORMAT,
                P01 ".comm_d_proofs.data.Single: unknown field \"lead\"");
    expect_text(c1, "\"leaf\":" MARK, "\"leaf\":" MARK ",\"base_proof\":{}", CZK_ERR_FORMAT,
                P01 ".comm_d_proofs.data.Single: field \"base_proof\" in a Single proof");
    expect_text(c1, "{\"registered_proof\"", "{\"extra\":0,\"registered_proof\"", CZK_ERR_FORMAT,
                "(document): unknown field \"extra\"");
    expect_text(c1, "\"registered_proof\":\"StackedDrg2KiBV1_1\",", "", CZK_ERR_FORMAT,
                "(document): missing field \"registered_proof\"");
    /* the column's _h: null or absent */
    expect_text(c1, MARK "],\"_h\":null", MARK "],\"_h\":0", CZK_ERR_FORMAT,
                P01
                ".replica_column_proofs.drg_parents[4].column._h: expected null, found a number");
    size_t len;
    char *json = to_json(c1, &len);
    char *at = strstr(json, MARK "],\"_h\":null");
    assert_non_null(at);
    memmove(at + strlen(MARK) + 1, at + strlen(MARK) + 1 + strlen(",\"_h\":null"),
            len - (size_t)(at - json) - strlen(MARK) - strlen(",\"_h\":null"));
    czk_c1 *back;
    czk_err err;
    czk_assert_ok(czk_c1_parse(&back, (const uint8_t *)json, len - strlen(",\"_h\":null"), &err),
                  &err);
    assert_true(c1_eq(c1, back));
    czk_c1_free(back);
    free(json);
    /* wrong types */
    expect_text(c1, "\"registered_proof\":\"StackedDrg2KiBV1_1\"", "\"registered_proof\":5",
                CZK_ERR_FORMAT,
                "registered_proof: expected a registered proof name, found a number");
    expect_text(c1, "\"registered_proof\":\"StackedDrg2KiBV1_1\"",
                "\"registered_proof\":\"StackedDrg2KiBV1_9\"", CZK_ERR_FORMAT,
                "registered_proof: unknown registered proof \"StackedDrg2KiBV1_9\"");
    expect_text(c1, "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[",
                "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[{", CZK_ERR_FORMAT,
                "vanilla_proofs.StackedDrg2KiBV1[0]: expected an array, found an object");
    expect_text(c1, "\"vanilla_proofs\":{", "\"vanilla_proofs\":{\"Other\":1,", CZK_ERR_FORMAT,
                "vanilla_proofs: unknown variant \"Other\"");
    expect_text(c1, "\"vanilla_proofs\":{", "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[],",
                CZK_ERR_FORMAT, "vanilla_proofs: more than one variant");
    expect_text(c1, "\"data\":{\"Single\"", "\"data\":{\"Double\"", CZK_ERR_FORMAT,
                "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data: unknown proof kind "
                "\"Double\" (Single, Sub or Top)");
    expect_text(c1, "\"data\":{\"Single\"", "\"data\":true,\"x\":{\"Single\"", CZK_ERR_FORMAT,
                "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data: expected an object, "
                "found a boolean");
    /* integers: u32, u64, usize index */
    expect_text(c1, "\"layer_index\":1,", "\"layer_index\":4294967296,", CZK_ERR_FORMAT,
                "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].layer_index: expected an "
                "unsigned 32-bit integer, found 4294967296");
    expect_text(c1, "\"layer_index\":1,", "\"layer_index\":-1,", CZK_ERR_FORMAT,
                "labeling_proofs[0].layer_index: expected an unsigned 32-bit integer, found -1");
    expect_text(c1, "\"node\":", "\"node\":18446744073709551616,\"x\":", CZK_ERR_FORMAT,
                "labeling_proofs[0].node: expected an unsigned 64-bit integer, found "
                "18446744073709551616");
    expect_text(c1, "\"index\":0}", "\"index\":8}", CZK_ERR_FORMAT,
                "index 8 is not below the arity");
    expect_text(c1, "\"index\":0}", "\"index\":\"0\"}", CZK_ERR_FORMAT,
                ": expected an unsigned 64-bit integer, found a string");
    czk_c1_free(c1);
}

static void test_refusals_counts(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    size_t len;
    char *json = to_json(c1, &len);
    /* the partition array, duplicated: an extra partition */
    const char *vp = "\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[";
    char *a = strstr(json, vp) + strlen(vp);
    char *b = strstr(json, "]},\"comm_r\":"); /* end of the partitions */
    size_t part = (size_t)(b - a);
    char *m = malloc(len + part + 2);
    size_t n = (size_t)(b - json);
    memcpy(m, json, n);
    m[n++] = ',';
    memcpy(m + n, a, part);
    n += part;
    memcpy(m + n, b, len - (size_t)(b - json));
    n += len - (size_t)(b - json);
    czk_c1 *back;
    czk_err err;
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)m, n, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg,
                        "vanilla_proofs.StackedDrg2KiBV1[1]: more than the 1 partitions of "
                        "StackedDrg2KiBV1_1");
    free(m);
    free(json);
    /* with registered_proof last, the shape check counts them at the end */
    czk_c1_free(c1);
    c1 = czk_c1_create(5, 2, 2, NULL);
    ts_sector s;
    assert_true(ts_seal(&s, 5, 1000, 42, TICKET, SEED, 7, NULL, NULL));
    czk_c1 *one = ts_c1(&s);
    c1->comm_r = one->comm_r;
    c1->comm_d = one->comm_d;
    c1->replica_id = one->replica_id;
    c1->seed = one->seed;
    c1->ticket = one->ticket;
    for (int i = 0; i < 4; i++)
        c1->proofs[i] = one->proofs[i % 2];
    json = to_json(c1, &len);
    const char *rp = "\"registered_proof\":\"StackedDrg2KiBV1_1\",";
    m = malloc(len + 8);
    n = (size_t)sprintf(m, "{");
    memcpy(m + n, json + 1 + strlen(rp), len - 2 - strlen(rp));
    n += len - 2 - strlen(rp);
    n += (size_t)sprintf(m + n, ",%.*s}", (int)strlen(rp) - 1, rp);
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)m, n, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg,
                        "vanilla_proofs.StackedDrg2KiBV1: 2 partitions, StackedDrg2KiBV1_1 "
                        "has 1");
    free(m);
    free(json);
    czk_c1_free(c1);
    /* three challenges in partition 0 */
    c1 = czk_c1_create(5, 1, 3, NULL);
    c1->comm_r = one->comm_r;
    c1->comm_d = one->comm_d;
    c1->replica_id = one->replica_id;
    c1->seed = one->seed;
    c1->ticket = one->ticket;
    for (int i = 0; i < 3; i++)
        c1->proofs[i] = one->proofs[i % 2];
    json = to_json(c1, &len);
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)json, len, &err), CZK_ERR_FORMAT);
    assert_string_equal(err.msg,
                        "vanilla_proofs.StackedDrg2KiBV1[0][2]: more than the 2 challenges "
                        "per partition of StackedDrg2KiBV1_1");
    free(json);
    czk_c1_free(c1);
    ts_free(&s);

    /* lengths checked against the shape */
    c1 = one;
    set_marker(&c1->proofs[1].c_x.rows[1]);
    expect_text(c1, MARK "]", MARK "," MARK "]", CZK_ERR_FORMAT,
                P01 ".replica_column_proofs.c_x.column.rows: 3 rows, expected 2");
    set_marker(&c1->proofs[1].labeling[0].parents[36]);
    expect_text(c1, "," MARK "],\"layer_index\":1", "],\"layer_index\":1", CZK_ERR_FORMAT,
                P01 ".labeling_proofs[0].parents: 36 parents, expected 37");
    set_marker(&c1->proofs[1].exp_parents[7].inclusion.root);
    /* drop exp_parents[7]: "},{"column" ... up to "]}" before labeling_proofs */
    json = to_json(c1, &len);
    char *e7 = strstr(json, "\"root\":" MARK);
    assert_non_null(e7);
    while (strncmp(e7, ",{\"column\"", 10))
        e7--;
    char *end = strstr(e7, "]},\"labeling_proofs\"");
    memmove(e7, end, strlen(end) + 1);
    assert_int_equal(czk_c1_parse(&back, (const uint8_t *)json, strlen(json), &err),
                     CZK_ERR_FORMAT);
    assert_string_equal(err.msg,
                        P01 ".replica_column_proofs.exp_parents: 7 column proofs, expected 8");
    free(json);
    /* a path element with 2 hashes in an octree, and a missing level */
    set_marker(&c1->proofs[1].comm_r_last_proof.siblings[8]);
    expect_text(c1, MARK, MARK "," MARK, CZK_ERR_FORMAT,
                P01 ".comm_r_last_proof.data.Single.path.path[1].hashes: 8 hashes, the 2KiB TreeR "
                    "needs 7 (arity 8)");
    czk_c1_free(one);
}

static void test_refusals_syntax(void **state) {
    (void)state;
    static const struct {
        const char *text;
        czk_status code;
        const char *msg;
    } v[] = {
        {"", CZK_ERR_FORMAT, "C1 JSON: invalid JSON at byte 0 (in (document)): parse error: premature EOF"},
        {"   ", CZK_ERR_FORMAT, "premature EOF"},
        {"nul", CZK_ERR_FORMAT, "C1 JSON: invalid JSON at byte"},
        {"[1,2]", CZK_ERR_FORMAT, "(document): expected an object, found an array"},
        {"7", CZK_ERR_FORMAT, "(document): expected an object, found a number"},
        {"\"x\"", CZK_ERR_FORMAT, "(document): expected an object, found a string"},
        {"{\"registered_proof\":", CZK_ERR_FORMAT, "premature EOF"},
        {"{\"comm_r\":[1,2,", CZK_ERR_FORMAT, "invalid JSON at byte 15 (in comm_r): parse error: premature EOF"},
        {"{\"comm_r\":[1,,2]}", CZK_ERR_FORMAT, "invalid JSON at byte"},
        {"{\"comm_r\":[01]}", CZK_ERR_FORMAT, "comm_r"},
        {"{} {}", CZK_ERR_FORMAT, "(document): missing field \"registered_proof\""},
        {"{\"comm_r\":[1]} x", CZK_ERR_FORMAT, "comm_r: expected an array of 32 integers, found 1"},
        {"{\"a\\u0000b\":1}", CZK_ERR_FORMAT, "(document): unknown field \"a"},
        {"{\"vanilla_proofs\":{}}", CZK_ERR_FORMAT, "vanilla_proofs: no variant"},
        {"{\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{\"comm_d_proofs\":{\"data\":{}}}]]}}",
         CZK_ERR_FORMAT,
         "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data: no Single, Sub or Top proof"},
        {"{\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{\"replica_column_proofs\":{\"drg_parents\":"
         "[{},{},{},{},{},{},{}]}}]]}}",
         CZK_ERR_FORMAT,
         "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.drg_parents[0]: missing "
         "field \"column\""},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        czk_c1 *c1;
        czk_err err;
        czk_status st = czk_c1_parse(&c1, (const uint8_t *)v[i].text, strlen(v[i].text), &err);
        if (st != v[i].code || !strstr(err.msg, v[i].msg))
            fail_msg("%s: expected %s \"%s\", got %s \"%s\"", v[i].text, czk_status_name(v[i].code),
                     v[i].msg, czk_status_name(st), err.msg);
        assert_null(c1);
    }
    czk_c1 *c1;
    assert_int_equal(czk_c1_parse(&c1, NULL, 0, NULL), CZK_ERR_FORMAT);
}

static void test_refusals_variant(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    expect_text(c1, "\"StackedDrg2KiBV1\":[[", "\"StackedDrg8MiBV1\":[[", CZK_ERR_FORMAT,
                "vanilla_proofs: variant StackedDrg8MiBV1 does not match StackedDrg2KiBV1_1 "
                "(StackedDrg2KiBV1)");
    expect_text(c1, "\"registered_proof\":\"StackedDrg2KiBV1_1\"",
                "\"registered_proof\":\"StackedDrg8MiBV1_1\"", CZK_ERR_FORMAT,
                "vanilla_proofs: variant StackedDrg2KiBV1 does not match StackedDrg8MiBV1_1 "
                "(StackedDrg8MiBV1)");
    /* the same proofs under another 2KiB id: NI has 13 partitions */
    expect_text(c1, "\"registered_proof\":\"StackedDrg2KiBV1_1\"",
                "\"registered_proof\":\"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep\"",
                CZK_ERR_FORMAT,
                "vanilla_proofs.StackedDrg2KiBV1: 1 partitions, "
                "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep has 13");
    czk_c1_free(c1);
}

/* ---- the envelope ---- */

static char *envelope(const char *json, size_t len, const char *num, const char *size,
                      size_t *out_len) {
    char *e = malloc(4 * ((len + 2) / 3) + 256);
    int h = sprintf(e, "{\"SectorNum\":%s,\"Phase1Out\":\"", num);
    int b = EVP_EncodeBlock((unsigned char *)e + h, (const unsigned char *)json, (int)len);
    int t = sprintf(e + h + b, "\",\"SectorSize\":%s}", size);
    *out_len = (size_t)(h + b + t);
    return e;
}

static void test_envelope(void **state) {
    (void)state;
    czk_c1 *c1 = sealed(5);
    size_t len, elen;
    char *json = to_json(c1, &len);
    czk_err err;
    czk_c1 *back;
    uint64_t sn, ss;
    /* three lengths mod 3: 0, 1 and 2 padding characters */
    for (int cut = 0; cut < 3; cut++) {
        char *j2 = malloc(len + 3);
        memcpy(j2, json, len);
        memcpy(j2 + len, "   ", (size_t)cut); /* trailing white space is still one C1 */
        char *e = envelope(j2, len + (size_t)cut, "18446744073709551615", "2048", &elen);
        czk_assert_ok(czk_c1_parse_envelope(&back, &sn, &ss, (const uint8_t *)e, elen, &err), &err);
        assert_int_equal(sn, UINT64_MAX);
        assert_int_equal(ss, 2048);
        assert_true(c1_eq(c1, back));
        czk_c1_free(back);
        free(e);
        free(j2);
    }
    /* refusals */
    char *e = envelope(json, len, "7", "34359738368", &elen);
    assert_int_equal(czk_c1_parse_envelope(&back, &sn, &ss, (const uint8_t *)e, elen, &err),
                     CZK_ERR_FORMAT);
    assert_string_equal(err.msg, "SectorSize: 34359738368, but the C1 is StackedDrg2KiBV1_1 (2048 "
                                 "bytes)");
    assert_null(back);
    free(e);
    e = envelope(json, len, "7", "2048", &elen);
    char *p = strstr(e, "Phase1Out\":\"") + 12;
    static const struct {
        size_t at;
        char c;
        const char *msg;
    } bad[] = {{100, '*', "Phase1Out: not standard base64 (a character outside"},
               {200, '=', "Phase1Out: '=' inside the base64 text (byte 200)"},
               {0, ' ', "Phase1Out: not standard base64 (byte 0 is white space)"},
               {300, '-', "Phase1Out: not standard base64"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char saved = p[bad[i].at];
        p[bad[i].at] = bad[i].c;
        czk_status st = czk_c1_parse_envelope(&back, &sn, &ss, (const uint8_t *)e, elen, &err);
        if (st != CZK_ERR_FORMAT || !strstr(err.msg, bad[i].msg))
            fail_msg("expected \"%s\", got %s \"%s\"", bad[i].msg, czk_status_name(st), err.msg);
        p[bad[i].at] = saved;
    }
    /* a C1 error inside: named with the envelope's field */
    p[0] = 'f'; /* "{" = "ew" -> "fw": another first byte */
    assert_int_equal(czk_c1_parse_envelope(&back, &sn, &ss, (const uint8_t *)e, elen, &err),
                     CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "envelope Phase1Out: C1 JSON: invalid JSON at byte "));
    free(e);
    /* length not a multiple of 4, missing fields, wrong types */
    static const struct {
        const char *text;
        const char *msg;
    } v[] = {
        {"{\"SectorNum\":1,\"Phase1Out\":\"abc\",\"SectorSize\":2048}",
         "Phase1Out: base64 length 3 is not a multiple of 4"},
        {"{\"SectorNum\":1,\"SectorSize\":2048}", "(envelope): missing field \"Phase1Out\""},
        {"{\"SectorNum\":-1,\"Phase1Out\":\"\",\"SectorSize\":2048}",
         "SectorNum: expected an unsigned 64-bit integer, found -1"},
        {"{\"SectorNum\":1,\"Phase1Out\":5,\"SectorSize\":2048}",
         "Phase1Out: expected a base64 string, found a number"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"\",\"SectorSize\":2048}",
         "envelope Phase1Out: C1 JSON: invalid JSON at byte 0 (in (document)): parse error: premature EOF"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}", /* "{}" */
         "envelope Phase1Out: (document): missing field \"registered_proof\""},
        {"{\"Extra\":1,\"SectorNum\":1,\"Phase1Out\":\"e30=\",\"SectorSize\":2048}",
         "(envelope): unknown field \"Extra\""},
        {"[]", "(envelope): expected an object, found an array"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        czk_status st = czk_c1_parse_envelope(&back, &sn, &ss, (const uint8_t *)v[i].text,
                                              strlen(v[i].text), &err);
        if (st == CZK_OK || !strstr(err.msg, v[i].msg))
            fail_msg("%s: expected \"%s\", got %s \"%s\"", v[i].text, v[i].msg, czk_status_name(st),
                     err.msg);
        assert_null(back);
    }
    free(json);
    czk_c1_free(c1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_2kib),
        cmocka_unit_test(test_round_trip_sub_top_text),
        cmocka_unit_test(test_writer_text),
        cmocka_unit_test(test_parse_whitespace_and_order),
        cmocka_unit_test(test_registered_proof_names),
        cmocka_unit_test(test_refusals_domains),
        cmocka_unit_test(test_refusals_fields),
        cmocka_unit_test(test_refusals_counts),
        cmocka_unit_test(test_refusals_syntax),
        cmocka_unit_test(test_refusals_variant),
        cmocka_unit_test(test_envelope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
