/*
 * The C1 JSON parser and cuzk's PoRep envelope.
 *
 * yajl (libyajl 2.1) streams the document through callbacks; this file
 * drives a schema of SealCommitPhase1Output with an explicit stack of
 * frames, one per open object or array, and writes every value straight
 * into the C1 under construction. Nothing like a DOM is built: a 32GiB C1
 * (≈ 38 MB of JSON) costs the caller's buffer plus the parsed C1 (≈ 10 MB)
 * plus a few small scratch vectors. simdjson was measured as the other
 * candidate: no faster here, and its structural index alone is 4 bytes per
 * input byte (bench/RESULTS.md, "C1 intake").
 *
 * The schema is strict where serde would be and a little stricter:
 *   - every field must be present (Column's "_h" may be absent; if present
 *     it must be null) and none may repeat or be unknown;
 *   - integers are plain decimal digits (no sign, fraction or exponent),
 *     Domain bytes 0..255, u32/u64 fields within their range;
 *   - Domain values must be canonical Fr (< r), except seed and ticket,
 *     which are plain bytes: PoseidonDomain values are Fr reprs, and
 *     Sha256Domain values are SHA-256 truncated to 254 bits (TreeD nodes,
 *     comm_d) or Fr32-padded data, so a value ≥ r cannot come from a sealed
 *     sector and the circuit could not take it as a witness either;
 *   - comm_r, comm_d and seed must not be all zero (cuzk refuses them);
 *   - the shape (partitions, challenges, path kinds, levels, arities, rows,
 *     37 labeling parents) must be the registered proof's (c1.c).
 * Fields may come in any order. Errors name the JSON path of the value.
 *
 * The schema is this file's; the stream (yajl fed in chunks, syntax errors
 * with byte offsets), strict integers, keys and the streaming base64 of the
 * envelope are the reusable ones of util/json.h.
 */
#include "porep/c1_internal.h"
#include "util/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define MAX_DEPTH 20
#define MAX_HASHES (CZK_MERKLE_MAX_ARITY - 1u)

typedef enum ftype {
    F_ROOT,
    F_VP,        /* {"<variant>": partitions} */
    F_PARTS,     /* [partition] */
    F_PART,      /* [Proof] */
    F_PROOF,     /* Proof */
    F_MERKLE,    /* {"data": ...} */
    F_MDATA,     /* {"Single"|"Sub"|"Top": ...} */
    F_MBODY,     /* SingleProof | SubProof | TopProof */
    F_IPATH,     /* InclusionPath {"path": [...]} */
    F_PATHARR,   /* [PathElement] */
    F_PELEM,     /* PathElement {"hashes", "index"} */
    F_HASHES,    /* [Domain] of a path element */
    F_DOMAIN,    /* [32 bytes] */
    F_RCP,       /* ReplicaColumnProof */
    F_COLPROOFS, /* [ColumnProof; 6 or 8] */
    F_COLPROOF,  /* ColumnProof */
    F_COLUMN,    /* Column {"index", "rows", "_h"} */
    F_DOMARR,    /* [Domain]: rows, parents */
    F_LABELS,    /* [LabelingProof] */
    F_LABEL,     /* LabelingProof / EncodingProof */
    F_ENV,       /* cuzk envelope */
    F_COUNT
} ftype;

/* What a slot (a field's value or an array's element) must hold. */
typedef enum xkind { X_OBJ, X_ARR, X_DOMAIN, X_BYTE, X_U32, X_U64, X_NAME, X_NULL, X_B64 } xkind;

static const char *const X_DESC[] = {"an object",
                                     "an array",
                                     "an array of 32 integers",
                                     "an integer 0..255",
                                     "an unsigned 32-bit integer",
                                     "an unsigned 64-bit integer",
                                     "a registered proof name",
                                     "null",
                                     "a base64 string"};

typedef struct field {
    const char *name;
    uint8_t x, child;
} field;

/* Field tables of the object frames; index = field id (bit in frame.seen). */
static const field ROOT_FIELDS[] = {
    {"registered_proof", X_NAME, 0}, {"vanilla_proofs", X_OBJ, F_VP}, {"comm_r", X_DOMAIN, 0},
    {"comm_d", X_DOMAIN, 0},         {"replica_id", X_DOMAIN, 0},     {"seed", X_DOMAIN, 0},
    {"ticket", X_DOMAIN, 0}};
static const field PROOF_FIELDS[] = {{"comm_d_proofs", X_OBJ, F_MERKLE},
                                     {"comm_r_last_proof", X_OBJ, F_MERKLE},
                                     {"replica_column_proofs", X_OBJ, F_RCP},
                                     {"labeling_proofs", X_ARR, F_LABELS},
                                     {"encoding_proof", X_OBJ, F_LABEL}};
static const field MERKLE_FIELDS[] = {{"data", X_OBJ, F_MDATA}};
static const field MBODY_FIELDS[] = {{"root", X_DOMAIN, 0},         {"leaf", X_DOMAIN, 0},
                                     {"path", X_OBJ, F_IPATH},      {"base_proof", X_OBJ, F_IPATH},
                                     {"sub_proof", X_OBJ, F_IPATH}, {"top_proof", X_OBJ, F_IPATH}};
static const field IPATH_FIELDS[] = {{"path", X_ARR, F_PATHARR}};
static const field PELEM_FIELDS[] = {{"hashes", X_ARR, F_HASHES}, {"index", X_U64, 0}};
static const field RCP_FIELDS[] = {{"c_x", X_OBJ, F_COLPROOF},
                                   {"drg_parents", X_ARR, F_COLPROOFS},
                                   {"exp_parents", X_ARR, F_COLPROOFS}};
static const field COLPROOF_FIELDS[] = {{"column", X_OBJ, F_COLUMN},
                                        {"inclusion_proof", X_OBJ, F_MERKLE}};
static const field COLUMN_FIELDS[] = {
    {"index", X_U32, 0}, {"rows", X_ARR, F_DOMARR}, {"_h", X_NULL, 0}};
static const field LABEL_FIELDS[] = {
    {"parents", X_ARR, F_DOMARR}, {"layer_index", X_U32, 0}, {"node", X_U64, 0}};
static const field ENV_FIELDS[] = {
    {"SectorNum", X_U64, 0}, {"Phase1Out", X_B64, 0}, {"SectorSize", X_U64, 0}};

typedef struct ftable {
    const field *f;
    unsigned n;
    uint32_t required; /* bit mask of the fields that must be present */
} ftable;

#define FT(a, req)                                                                                 \
    { a, sizeof a / sizeof a[0], req }
static const ftable TABLES[F_COUNT] = {
    [F_ROOT] = FT(ROOT_FIELDS, 0x7f),  [F_PROOF] = FT(PROOF_FIELDS, 0x1f),
    [F_MERKLE] = FT(MERKLE_FIELDS, 1), [F_MBODY] = FT(MBODY_FIELDS, 0), /* by kind */
    [F_IPATH] = FT(IPATH_FIELDS, 1),   [F_PELEM] = FT(PELEM_FIELDS, 3),
    [F_RCP] = FT(RCP_FIELDS, 7),       [F_COLPROOF] = FT(COLPROOF_FIELDS, 3),
    [F_COLUMN] = FT(COLUMN_FIELDS, 3), [F_LABEL] = FT(LABEL_FIELDS, 7),
    [F_ENV] = FT(ENV_FIELDS, 7),
};
/* MBODY fields allowed (and required) by kind: root, leaf + path | base, sub (+ top). */
static const uint32_t MBODY_MASK[3] = {0x07, 0x1b, 0x3b};
static const char *const KIND_NAMES[3] = {"Single", "Sub", "Top"};

#define NO_KEY 0xff
#define VARIANT_KEY_NAME czk_c1_variant_names

typedef struct frame {
    uint8_t type;
    uint8_t key;    /* pending field id (object frames), NO_KEY if none */
    uint8_t aux;    /* F_DOMAIN: check < r; F_COLPROOFS: 6 or 8; F_IPATH/F_PATHARR/F_HASHES/F_PELEM:
                       part */
    uint32_t seen;  /* object frames: fields seen */
    uint32_t count; /* array frames: elements so far; F_DOMAIN: bytes */
    const char *name; /* key this frame was reached by, or NULL: index `idx` */
    uint32_t idx;
    uint32_t level; /* F_PELEM: its level within the part */
    uint64_t u;     /* F_PELEM: index */
    void *dst;
} frame;

typedef struct part_scratch {
    uint32_t levels;
    uint8_t arity[CZK_MERKLE_MAX_LEVELS];
    uint32_t index[CZK_MERKLE_MAX_LEVELS];
    czk_domain *sib;
    size_t nsib, capsib;
} part_scratch;

typedef struct parser {
    czk_err *err;
    czk_status st;
    frame stk[MAX_DEPTH];
    int top; /* index of the top frame; -1 before the document */
    bool done;
    bool envelope;
    czk_c1 *c1;
    int registered; /* registered proof id, -1 until seen */
    int variant;    /* vanilla_proofs key's shape index, -1 until seen */
    czk_porep_proof proof;
    /* vanilla proofs, in document order */
    czk_vanilla_proof *proofs;
    size_t nproofs, capproofs;
    uint32_t nparts, cpp;
    /* scratch */
    czk_domain *dom;
    size_t ndom, capdom;
    part_scratch part[3];
    czk_merkle_kind kind;
    czk_labeling_proof *labels;
    size_t nlab, caplab;
    /* envelope */
    uint64_t sector_num, sector_size;
    czk_c1 *env_c1; /* the C1 decoded from Phase1Out */
} parser;

/* ---- errors ---- */

/* Writes the JSON path of frame `upto` (and, with slot, of its pending slot). */
static void path_of(const parser *p, int upto, bool slot, char *out, size_t cap) {
    size_t n = 0;
    out[0] = 0;
#define APP(...)                                                                                   \
    do {                                                                                           \
        if (n < cap) {                                                                             \
            int w_ = snprintf(out + n, cap - n, __VA_ARGS__);                                      \
            if (w_ > 0) n += (size_t)w_;                                                           \
        }                                                                                          \
    } while (0)
    for (int i = 1; i <= upto; i++) {
        const frame *f = &p->stk[i];
        if (f->name)
            APP("%s%s", n ? "." : "", f->name);
        else
            APP("[%u]", f->idx);
    }
    if (slot && upto >= 0) {
        const frame *f = &p->stk[upto];
        if (f->type == F_VP && f->key != NO_KEY && p->variant >= 0) {
            APP("%s%s", n ? "." : "", VARIANT_KEY_NAME[p->variant]);
        } else if (f->type == F_MDATA && f->key != NO_KEY) {
            APP("%s%s", n ? "." : "", KIND_NAMES[p->kind]);
        } else if (f->type == F_VP || f->type == F_MDATA) {
            /* no key yet */
        } else if (f->key != NO_KEY && TABLES[f->type].f) {
            APP("%s%s", n ? "." : "", TABLES[f->type].f[f->key].name);
        } else if (TABLES[f->type].f == NULL) {
            APP("[%u]", f->count);
        }
    }
    if (n == 0) snprintf(out, cap, "%s", p->envelope ? "(envelope)" : "(document)");
#undef APP
}

/* Fails the parse with "<path>: <message>"; returns 0 (yajl: cancel). */
static int fail_at(parser *p, int upto, bool slot, czk_status code, const char *fmt, ...)
    CZK_PRINTF(5, 6);
static int fail_at(parser *p, int upto, bool slot, czk_status code, const char *fmt, ...) {
    if (p->st) return 0;
    char path[400], msg[300];
    path_of(p, upto, slot, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->st = czk_errf(p->err, code, "%s: %s", path, msg);
    return 0;
}
#define FAIL_SLOT(p, ...) fail_at(p, (p)->top, true, CZK_ERR_FORMAT, __VA_ARGS__)
#define FAIL_TOP(p, ...) fail_at(p, (p)->top, false, CZK_ERR_FORMAT, __VA_ARGS__)

static int oom(parser *p) {
    return fail_at(p, p->top, false, CZK_ERR_NOMEM, "out of memory");
}

/* Grows *v (elements of `size` bytes) to hold n + 1; false on OOM. */
static bool grow(void **v, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return true;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*v, nc * size);
    if (!q) return false;
    *v = q;
    *cap = nc;
    return true;
}

/* ---- the slot expected next ---- */

static xkind expect(const parser *p, uint8_t *child) {
    *child = 0;
    if (p->top < 0) {
        *child = p->envelope ? F_ENV : F_ROOT;
        return X_OBJ;
    }
    const frame *f = &p->stk[p->top];
    switch (f->type) {
    case F_VP:
        *child = F_PARTS;
        return X_ARR;
    case F_MDATA:
        *child = F_MBODY;
        return X_OBJ;
    case F_PARTS:
        *child = F_PART;
        return X_ARR;
    case F_PART:
        *child = F_PROOF;
        return X_OBJ;
    case F_PATHARR:
        *child = F_PELEM;
        return X_OBJ;
    case F_COLPROOFS:
        *child = F_COLPROOF;
        return X_OBJ;
    case F_LABELS:
        *child = F_LABEL;
        return X_OBJ;
    case F_HASHES:
    case F_DOMARR:
        return X_DOMAIN;
    case F_DOMAIN:
        return X_BYTE;
    default: {
        const field *fd = &TABLES[f->type].f[f->key];
        *child = fd->child;
        return (xkind)fd->x;
    }
    }
}

static int type_error(parser *p, xkind want, const char *found) {
    return FAIL_SLOT(p, "expected %s, found %s", X_DESC[want], found);
}

/* Pushes a frame for a container value of the top frame's slot. */
static frame *push(parser *p, uint8_t type) {
    if (p->top + 1 >= MAX_DEPTH) {
        FAIL_SLOT(p, "nested too deeply");
        return NULL;
    }
    frame *parent = p->top >= 0 ? &p->stk[p->top] : NULL;
    frame *c = &p->stk[++p->top];
    memset(c, 0, sizeof *c);
    c->type = type;
    c->key = NO_KEY;
    if (parent) {
        if (parent->type == F_VP || parent->type == F_MDATA) {
            c->name = "?"; /* the variant or kind, set by enter() */
        } else if (TABLES[parent->type].f) {
            c->name = TABLES[parent->type].f[parent->key].name;
        } else {
            c->idx = parent->count;
        }
    }
    return c;
}

/* Finishes a value in the top frame's slot: clears the key / counts the element. */
static void slot_done(parser *p) {
    if (p->top < 0) {
        p->done = true;
        return;
    }
    frame *f = &p->stk[p->top];
    if (TABLES[f->type].f || f->type == F_VP || f->type == F_MDATA)
        f->key = NO_KEY;
    else
        f->count++;
}

/* ---- containers ---- */

/* Sets up the child frame c of a container value (dst, limits, scratch). */
static int enter(parser *p, frame *c) {
    if (c->type == F_ROOT || c->type == F_ENV) return 1;
    frame *f = &p->stk[p->top - 1]; /* the parent */
    switch (c->type) {
    case F_VP:
        return 1;
    case F_PARTS:
        c->name = VARIANT_KEY_NAME[p->variant];
        return 1;
    case F_PART:
        if (p->registered >= 0 && f->count >= p->proof.partitions) {
            p->top--;
            return FAIL_SLOT(p, "more than the %u partitions of %s", p->proof.partitions,
                             czk_registered_proof_name((uint32_t)p->registered));
        }
        return 1;
    case F_PROOF: {
        if (p->registered >= 0 && f->count >= p->proof.challenges_per_partition) {
            p->top--;
            return FAIL_SLOT(p, "more than the %u challenges per partition of %s",
                             p->proof.challenges_per_partition,
                             czk_registered_proof_name((uint32_t)p->registered));
        }
        if (!grow((void **)&p->proofs, &p->capproofs, p->nproofs, sizeof *p->proofs)) return oom(p);
        czk_vanilla_proof *v = &p->proofs[p->nproofs++];
        memset(v, 0, sizeof *v);
        c->dst = v;
        return 1;
    }
    case F_MERKLE:
        switch (f->type) {
        case F_PROOF: {
            czk_vanilla_proof *v = f->dst;
            c->dst = f->key == 0 ? &v->comm_d_proof : &v->comm_r_last_proof;
            break;
        }
        default: /* F_COLPROOF */
            c->dst = &((czk_column_proof *)f->dst)->inclusion;
        }
        return 1;
    case F_MDATA:
        c->dst = f->dst;
        return 1;
    case F_MBODY:
        c->name = KIND_NAMES[p->kind];
        c->dst = f->dst;
        for (int i = 0; i < 3; i++) {
            p->part[i].levels = 0;
            p->part[i].nsib = 0;
        }
        return 1;
    case F_IPATH: /* f is F_MBODY; key 2 (path) and 3 (base_proof) are part 0 */
        c->aux = f->key <= 3 ? 0 : (uint8_t)(f->key - 3);
        return 1;
    case F_PATHARR:
        c->aux = f->aux;
        return 1;
    case F_PELEM: {
        part_scratch *ps = &p->part[f->aux];
        uint32_t total = p->part[0].levels + p->part[1].levels + p->part[2].levels;
        if (total >= CZK_MERKLE_MAX_LEVELS) {
            p->top--;
            return FAIL_SLOT(p, "more than %u path levels", CZK_MERKLE_MAX_LEVELS);
        }
        c->aux = f->aux;
        c->level = ps->levels++;
        ps->arity[c->level] = 0;
        ps->index[c->level] = 0;
        return 1;
    }
    case F_HASHES:
        c->aux = f->aux;
        c->level = f->level;
        return 1;
    case F_RCP:
        c->dst = f->dst;
        return 1;
    case F_COLPROOFS: {
        czk_vanilla_proof *v = f->dst;
        c->aux = f->key == 1 ? 6 : 8;
        c->dst = f->key == 1 ? v->drg_parents : v->exp_parents;
        return 1;
    }
    case F_COLPROOF:
        if (f->type == F_RCP) {
            c->dst = &((czk_vanilla_proof *)f->dst)->c_x;
        } else {
            if (f->count >= f->aux) {
                p->top--;
                return FAIL_SLOT(p, "more than %u column proofs", f->aux);
            }
            c->dst = (czk_column_proof *)f->dst + f->count;
        }
        return 1;
    case F_COLUMN:
        c->dst = f->dst;
        return 1;
    case F_DOMARR:
        c->dst = f->dst; /* the column proof or labeling proof; f->type says which */
        c->aux = f->type == F_COLUMN;
        p->ndom = 0;
        return 1;
    case F_LABELS:
        c->dst = f->dst;
        p->nlab = 0;
        return 1;
    case F_LABEL:
        if (f->type == F_LABELS) {
            if (!grow((void **)&p->labels, &p->caplab, p->nlab, sizeof *p->labels)) return oom(p);
            czk_labeling_proof *l = &p->labels[p->nlab++];
            memset(l, 0, sizeof *l);
            c->dst = l;
        } else {
            c->dst = &((czk_vanilla_proof *)f->dst)->encoding;
        }
        return 1;
    case F_DOMAIN: {
        c->aux = 1; /* canonical Fr, except seed and ticket */
        switch (f->type) {
        case F_ROOT: {
            czk_c1 *c1 = p->c1;
            czk_domain *d[] = {NULL,      NULL,       &c1->comm_r, &c1->comm_d, &c1->replica_id,
                               &c1->seed, &c1->ticket};
            c->dst = d[f->key];
            c->aux = f->key < 5;
            break;
        }
        case F_MBODY: {
            czk_merkle_proof *m = f->dst;
            c->dst = f->key == 0 ? &m->root : &m->leaf;
            break;
        }
        case F_HASHES: {
            part_scratch *ps = &p->part[f->aux];
            if (f->count >= MAX_HASHES) {
                p->top--;
                return FAIL_SLOT(p, "more than %u hashes", MAX_HASHES);
            }
            if (!grow((void **)&ps->sib, &ps->capsib, ps->nsib, sizeof *ps->sib)) return oom(p);
            c->dst = &ps->sib[ps->nsib++];
            break;
        }
        default: /* F_DOMARR */
            if (f->count >= 4096) {
                p->top--;
                return FAIL_SLOT(p, "more than 4096 values");
            }
            if (!grow((void **)&p->dom, &p->capdom, p->ndom, sizeof *p->dom)) return oom(p);
            c->dst = &p->dom[p->ndom++];
        }
        return 1;
    }
    default:
        return 1;
    }
}

static int open_container(parser *p, bool is_array) {
    if (p->st) return 0;
    if (p->done) return FAIL_TOP(p, "more than one JSON value");
    uint8_t child;
    xkind x = expect(p, &child);
    if (is_array) {
        if (x == X_DOMAIN)
            child = F_DOMAIN;
        else if (x != X_ARR)
            return type_error(p, x, "an array");
    } else if (x != X_OBJ) {
        return type_error(p, x, "an object");
    }
    frame *c = push(p, child);
    if (!c) return 0;
    return enter(p, c);
}

static int on_start_map(void *ctx) {
    return open_container(ctx, false);
}

static int on_start_array(void *ctx) {
    return open_container(ctx, true);
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len) {
    parser *p = ctx;
    if (p->st) return 0;
    frame *f = &p->stk[p->top];
    char k[68];
    czk_json_key_text(k, key, len);
    if (f->type == F_VP) {
        if (f->seen) return FAIL_TOP(p, "more than one variant");
        for (int i = 0; i < CZK_POREP_SHAPE_COUNT; i++)
            if (czk_json_key_is(key, len, VARIANT_KEY_NAME[i])) {
                p->variant = i;
                f->seen = 1;
                f->key = 0;
                return 1;
            }
        return FAIL_TOP(p, "unknown variant \"%s\"", k);
    }
    if (f->type == F_MDATA) {
        if (f->seen) return FAIL_TOP(p, "more than one of Single, Sub, Top");
        for (int i = 0; i < 3; i++)
            if (czk_json_key_is(key, len, KIND_NAMES[i])) {
                p->kind = (czk_merkle_kind)i;
                ((czk_merkle_proof *)f->dst)->kind = (czk_merkle_kind)i;
                f->seen = 1;
                f->key = 0;
                return 1;
            }
        return FAIL_TOP(p, "unknown proof kind \"%s\" (Single, Sub or Top)", k);
    }
    const ftable *t = &TABLES[f->type];
    for (unsigned i = 0; i < t->n; i++) {
        if (czk_json_key_is(key, len, t->f[i].name)) {
            if (f->type == F_MBODY && !(MBODY_MASK[p->kind] >> i & 1))
                return FAIL_TOP(p, "field \"%s\" in a %s proof", k, KIND_NAMES[p->kind]);
            if (f->seen >> i & 1) return FAIL_TOP(p, "duplicate field \"%s\"", k);
            f->seen |= 1u << i;
            f->key = (uint8_t)i;
            return 1;
        }
    }
    return FAIL_TOP(p, "unknown field \"%s\"", k);
}

/* Copies scratch domains into the arena. */
static czk_domain *keep_domains(parser *p, const czk_domain *src, size_t n) {
    if (n == 0) return NULL;
    czk_domain *d = czk_c1_alloc(p->c1, n * sizeof *d);
    if (d) memcpy(d, src, n * sizeof *d);
    return d;
}

static int missing(parser *p, uint32_t required, uint32_t seen, const ftable *t) {
    for (unsigned i = 0; i < t->n; i++)
        if ((required >> i & 1) && !(seen >> i & 1))
            return FAIL_TOP(p, "missing field \"%s\"", t->f[i].name);
    return 1;
}

/* Completes the top frame (its closing bracket was read). */
static int close_frame(parser *p) {
    frame *f = &p->stk[p->top];
    const ftable *t = &TABLES[f->type];
    if (t->f && f->type != F_MBODY && !missing(p, t->required, f->seen, t)) return 0;
    switch (f->type) {
    case F_VP:
        if (!f->seen) return FAIL_TOP(p, "no variant");
        break;
    case F_MDATA:
        if (!f->seen) return FAIL_TOP(p, "no Single, Sub or Top proof");
        break;
    case F_MBODY: {
        if (!missing(p, MBODY_MASK[p->kind], f->seen, t)) return 0;
        czk_merkle_proof *m = f->dst;
        size_t nsib = p->part[0].nsib + p->part[1].nsib + p->part[2].nsib;
        czk_domain *sib = nsib ? czk_c1_alloc(p->c1, nsib * sizeof *sib) : NULL;
        if (nsib && !sib) return oom(p);
        m->siblings = sib;
        uint32_t l = 0;
        for (int i = 0; i < 3; i++) {
            part_scratch *ps = &p->part[i];
            m->levels_in_part[i] = ps->levels;
            memcpy(m->arity + l, ps->arity, ps->levels);
            memcpy(m->index + l, ps->index, ps->levels * sizeof *ps->index);
            if (ps->nsib) memcpy(sib, ps->sib, ps->nsib * sizeof *sib);
            sib += ps->nsib;
            l += ps->levels;
        }
        m->num_levels = l;
        break;
    }
    case F_PELEM: {
        part_scratch *ps = &p->part[f->aux];
        if (f->u >= ps->arity[f->level])
            return FAIL_TOP(p, "index %llu is not below the arity %u (hashes + 1)",
                            (unsigned long long)f->u, ps->arity[f->level]);
        ps->index[f->level] = (uint32_t)f->u;
        break;
    }
    case F_HASHES:
        p->part[f->aux].arity[f->level] = (uint8_t)(f->count + 1);
        break;
    case F_DOMAIN: {
        if (f->count != 32)
            return FAIL_TOP(p, "expected an array of 32 integers, found %u", f->count);
        if (f->aux && !czk_domain_is_canonical(f->dst))
            return FAIL_TOP(p, "value is not below the field modulus r");
        break;
    }
    case F_COLPROOFS:
        if (f->count != f->aux)
            return FAIL_TOP(p, "%u column proofs, expected %u", f->count, f->aux);
        break;
    case F_DOMARR: {
        czk_domain *d = keep_domains(p, p->dom, p->ndom);
        if (p->ndom && !d) return oom(p);
        if (f->aux) {
            czk_column_proof *cp = f->dst;
            cp->rows = d;
            cp->num_rows = (uint32_t)p->ndom;
        } else {
            czk_labeling_proof *l = f->dst;
            l->parents = d;
            l->num_parents = (uint32_t)p->ndom;
        }
        break;
    }
    case F_LABELS: {
        czk_vanilla_proof *v = f->dst;
        if (p->nlab) {
            v->labeling = czk_c1_alloc(p->c1, p->nlab * sizeof *v->labeling);
            if (!v->labeling) return oom(p);
            memcpy(v->labeling, p->labels, p->nlab * sizeof *v->labeling);
        }
        v->num_labeling = (uint32_t)p->nlab;
        break;
    }
    case F_PART: {
        frame *parts = &p->stk[p->top - 1];
        if (parts->count == 0)
            p->cpp = f->count;
        else if (f->count != p->cpp)
            return FAIL_TOP(p, "%u vanilla proofs, partition 0 has %u", f->count, p->cpp);
        break;
    }
    case F_PARTS:
        p->nparts = f->count;
        if (f->count == 0) p->cpp = 0;
        break;
    default:
        break;
    }
    p->top--;
    slot_done(p);
    return 1;
}

static int on_end(void *ctx) {
    parser *p = ctx;
    if (p->st) return 0;
    return close_frame(p);
}

/* ---- scalars ---- */

static int on_number(void *ctx, const char *s, size_t n) {
    parser *p = ctx;
    if (p->st) return 0;
    frame *f = p->top >= 0 ? &p->stk[p->top] : NULL;
    if (f && f->type == F_DOMAIN) {
        /* the hot path: one byte of a Domain */
        unsigned v;
        if (n == 1 && (unsigned)(s[0] - '0') <= 9) {
            v = (unsigned)(s[0] - '0');
        } else {
            uint64_t u;
            if (!czk_json_u64(s, n, &u) || u > 255)
                return FAIL_SLOT(p, "expected an integer 0..255, found %.*s",
                                 (int)(n > 40 ? 40 : n), s);
            v = (unsigned)u;
        }
        if (f->count >= 32) return FAIL_TOP(p, "expected an array of 32 integers, found more");
        ((uint8_t *)f->dst)[f->count++] = (uint8_t)v;
        return 1;
    }
    uint8_t child;
    xkind x = expect(p, &child);
    if (x != X_U32 && x != X_U64) return type_error(p, x, "a number");
    uint64_t u;
    if (!czk_json_u64(s, n, &u) || (x == X_U32 && u > UINT32_MAX))
        return FAIL_SLOT(p, "expected %s, found %.*s", X_DESC[x], (int)(n > 40 ? 40 : n), s);
    switch (f->type) { /* f != NULL: the document's slot is an object */
    case F_PELEM:
        f->u = u;
        break;
    case F_COLUMN:
        ((czk_column_proof *)f->dst)->index = (uint32_t)u;
        break;
    case F_LABEL: {
        czk_labeling_proof *l = f->dst;
        if (f->key == 1)
            l->layer_index = (uint32_t)u;
        else
            l->node = u;
        break;
    }
    case F_ENV:
        if (f->key == 0)
            p->sector_num = u;
        else
            p->sector_size = u;
        break;
    default:
        break;
    }
    slot_done(p);
    return 1;
}

static int decode_phase1out(parser *p, const unsigned char *s, size_t n);

static int on_string(void *ctx, const unsigned char *s, size_t n) {
    parser *p = ctx;
    if (p->st) return 0;
    if (p->done) return FAIL_TOP(p, "more than one JSON value");
    uint8_t child;
    xkind x = expect(p, &child);
    if (x == X_NAME) {
        char name[64];
        int id = -1;
        if (n < sizeof name) {
            memcpy(name, s, n);
            name[n] = 0;
            id = czk_registered_proof_from_name(name);
        }
        if (id < 0)
            return FAIL_SLOT(p, "unknown registered proof \"%.*s%s\"", (int)(n > 60 ? 60 : n),
                             (const char *)s, n > 60 ? "..." : "");
        p->registered = id;
        if (czk_porep_proof_lookup((uint64_t)id, &p->proof, p->err)) {
            p->st = p->err ? p->err->code : CZK_ERR_INTERNAL;
            return 0;
        }
        slot_done(p);
        return 1;
    }
    if (x == X_B64) {
        if (!decode_phase1out(p, s, n)) return 0;
        slot_done(p);
        return 1;
    }
    return type_error(p, x, "a string");
}

static int on_null(void *ctx) {
    parser *p = ctx;
    if (p->st) return 0;
    if (p->done) return FAIL_TOP(p, "more than one JSON value");
    uint8_t child;
    xkind x = expect(p, &child);
    if (x != X_NULL) return type_error(p, x, "null");
    slot_done(p);
    return 1;
}

static int on_boolean(void *ctx, int v) {
    (void)v;
    parser *p = ctx;
    if (p->st) return 0;
    if (p->done) return FAIL_TOP(p, "more than one JSON value");
    uint8_t child;
    return type_error(p, expect(p, &child), "a boolean");
}

static const yajl_callbacks CALLBACKS = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

static void parser_free(parser *p) {
    free(p->proofs);
    free(p->dom);
    free(p->labels);
    for (int i = 0; i < 3; i++)
        free(p->part[i].sib);
}

/*
 * A JSON stream and its parser, fed in chunks: the whole C1 text at once, or
 * the envelope's Phase1Out decoded piece by piece.
 */
typedef struct stream {
    parser p;
    czk_json_stream js;
} stream;

static void parser_path(void *ctx, char *out, size_t cap) {
    parser *p = ctx;
    path_of(p, p->top, false, out, cap);
}

static czk_status stream_init(stream *s, bool envelope, czk_err *err) {
    memset(s, 0, sizeof *s);
    s->p.err = err;
    s->p.top = -1;
    s->p.registered = -1;
    s->p.variant = -1;
    s->p.envelope = envelope;
    if (!envelope && !(s->p.c1 = czk_c1_create(0, 0, 0, err)))
        return err ? err->code : CZK_ERR_NOMEM;
    czk_status st = czk_json_stream_init(
        &s->js, &CALLBACKS, &s->p, envelope ? "envelope" : "C1 JSON", &s->p.st, parser_path, err);
    if (st) {
        czk_c1_free(s->p.c1);
        s->p.c1 = NULL;
    }
    return st;
}

static void stream_free(stream *s) {
    czk_json_stream_free(&s->js);
    czk_c1_free(s->p.c1);
    czk_c1_free(s->p.env_c1);
    parser_free(&s->p);
}

static czk_status stream_feed(stream *s, const uint8_t *buf, size_t len) {
    return czk_json_stream_feed(&s->js, buf, len);
}

static czk_status stream_finish(stream *s) {
    return czk_json_stream_finish(&s->js, s->p.done);
}

/* After a complete C1 document: assembles the czk_c1 and checks it. */
static czk_status c1_finish(stream *s, czk_c1 **out) {
    parser *p = &s->p;
    czk_err *err = p->err;
    czk_c1 *c1 = p->c1;
    czk_status st = CZK_OK;
    c1->registered_proof = (uint32_t)p->registered;
    c1->num_partitions = p->nparts;
    c1->challenges_per_partition = p->cpp;
    c1->proofs = czk_c1_alloc(c1, (p->nproofs ? p->nproofs : 1) * sizeof *c1->proofs);
    if (!c1->proofs) return czk_errf(err, CZK_ERR_NOMEM, "C1 JSON: out of memory");
    if (p->nproofs) memcpy(c1->proofs, p->proofs, p->nproofs * sizeof *c1->proofs);
    static const struct {
        const char *name;
        size_t off;
    } NONZERO[] = {{"comm_r", offsetof(czk_c1, comm_r)},
                   {"comm_d", offsetof(czk_c1, comm_d)},
                   {"seed", offsetof(czk_c1, seed)}};
    for (int i = 0; !st && i < 3; i++)
        if (czk_domain_is_zero((const czk_domain *)((const char *)c1 + NONZERO[i].off)))
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: all zero (refused, as cuzk does)",
                          NONZERO[i].name);
    if (!st) st = czk_c1_check_shape(c1, p->variant, err);
    if (!st) {
        *out = c1;
        p->c1 = NULL; /* handed over */
    }
    return st;
}

czk_status czk_c1_parse(czk_c1 **out, const uint8_t *json, size_t len, czk_err *err) {
    *out = NULL;
    if (!json && len) return czk_errf(err, CZK_ERR_INVALID_ARG, "C1 JSON: NULL text");
    stream s;
    czk_status st = stream_init(&s, false, err);
    if (!st) st = stream_feed(&s, json ? json : (const uint8_t *)"", len);
    if (!st) st = stream_finish(&s);
    if (!st) st = c1_finish(&s, out);
    stream_free(&s);
    return st;
}

static czk_status feed_sink(void *ctx, const uint8_t *buf, size_t len) {
    return stream_feed(ctx, buf, len);
}

/*
 * Phase1Out: standard base64 (RFC 4648 §4, padded), decoded 48 KiB at a time
 * (czk_json_b64_decode) and fed to a C1 parser as it goes, so the decoded C1
 * text is never held whole.
 */
static int decode_phase1out(parser *p, const unsigned char *s, size_t n) {
    stream *in = malloc(sizeof *in);
    czk_status st = in ? stream_init(in, false, p->err)
                       : czk_errf(p->err, CZK_ERR_NOMEM, "Phase1Out: out of memory");
    if (st) {
        free(in);
        p->st = st;
        return 0;
    }
    char why[200];
    st = czk_json_b64_decode(s, n, feed_sink, in, why, sizeof why);
    if (why[0]) { /* the base64 text itself */
        stream_free(in);
        free(in);
        if (st == CZK_ERR_NOMEM) {
            p->st = czk_errf(p->err, st, "Phase1Out: %s", why);
            return 0;
        }
        return FAIL_SLOT(p, "%s", why);
    }
    if (!st) st = stream_finish(in);
    if (!st) st = c1_finish(in, &p->env_c1);
    stream_free(in);
    free(in);
    if (st) {
        czk_err_wrap(p->err, "envelope Phase1Out");
        p->st = st;
        return 0;
    }
    return 1;
}

czk_status czk_c1_parse_envelope(czk_c1 **out, uint64_t *sector_num, uint64_t *sector_size,
                                 const uint8_t *json, size_t len, czk_err *err) {
    *out = NULL;
    if (!json && len) return czk_errf(err, CZK_ERR_INVALID_ARG, "envelope: NULL text");
    stream s;
    czk_status st = stream_init(&s, true, err);
    if (!st) st = stream_feed(&s, json ? json : (const uint8_t *)"", len);
    if (!st) st = stream_finish(&s);
    czk_porep_proof pr;
    if (!st && czk_porep_proof_lookup(s.p.env_c1->registered_proof, &pr, err))
        st = err ? err->code : CZK_ERR_INTERNAL;
    if (!st && s.p.sector_size != pr.shape->sector_size)
        st = czk_errf(err, CZK_ERR_FORMAT, "SectorSize: %llu, but the C1 is %s (%llu bytes)",
                      (unsigned long long)s.p.sector_size,
                      czk_registered_proof_name(s.p.env_c1->registered_proof),
                      (unsigned long long)pr.shape->sector_size);
    if (!st) {
        if (sector_num) *sector_num = s.p.sector_num;
        if (sector_size) *sector_size = s.p.sector_size;
        *out = s.p.env_c1;
        s.p.env_c1 = NULL;
    }
    stream_free(&s);
    return st;
}
