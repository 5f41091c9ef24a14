/*
 * czk — Filecoin's FallbackPoSt (WinningPoSt and WindowPoSt): the circuit of
 * one partition, its shapes and registered proofs, its public inputs and
 * challenge derivation, and the bincode vanilla proofs it is proved from
 * (rust-fil-proofs v28 storage-proofs-post fallback/{circuit,compound,
 * vanilla,utils}.rs, filecoin-proofs constants.rs and types/mod.rs,
 * rust-filecoin-proofs-api registry.rs; spec/post-snap.md §1, §3).
 *
 * The circuit of one partition (FallbackPoStCircuit::synthesize), for each
 * of its `sectors` sectors in order (namespace "sector_<i>"):
 *   1. comm_r_last, comm_c, comm_r allocated (aux, no constraint);
 *   2. comm_r inputized (1 constraint);
 *   3. Poseidon-2(comm_c, comm_r_last) (311 constraints), then
 *      comm_r · ONE = hash (1);
 *   4. per challenge j ("challenge_inclusion_<j>"): the leaf allocated, then
 *      the PoR of the leaf up to comm_r_last through the TreeR shape (czk_por:
 *      index bits and siblings per level, insertion, Poseidon), the packed
 *      path bits inputized (the challenged leaf index) and computed root ·
 *      ONE = comm_r_last.
 * After the circuit czk_cs_run() adds one input · 0 = 0 per input. The
 * sector's prover id is carried upstream but never constrained; it is not
 * here at all.
 *
 * Costs per sector: 313 + challenges · (Σ levels + 2) constraints, 314 +
 * challenges · (1 + Σ level aux) aux, 1 + challenges inputs; a Poseidon
 * octree level is 530 constraints / 537 aux, quad 387 / 390, binary 314 /
 * 315 (por.h). So WindowPoSt 32GiB is 2349 · (313 + 10 · 5,302) =
 * 125,279,217 synthesized constraints with 25,840 inputs, ONE included.
 *
 * WinningPoSt is the same circuit with 66 one-challenge sectors (all the
 * same sector); WindowPoSt has 10 challenges per sector and 2 (test sizes),
 * 2349 (32GiB) or 2300 (64GiB) sectors per partition. The circuit and the
 * Groth16 key are the same for every API version; only the public inputs'
 * challenge indices differ (czk_post_challenge_index).
 */
#ifndef CZK_POST_H
#define CZK_POST_H

#include "czk/common.h"
#include "czk/ff.h"
#include "czk/keys.h"
#include "czk/pool.h"
#include "czk/por.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_post_kind {
    CZK_POST_WINNING = 1,
    CZK_POST_WINDOW = 2,
} czk_post_kind;

/* storage-proofs-core ApiVersion as the PoSt challenge derivation sees it. */
typedef enum czk_post_api {
    CZK_POST_API_1_0 = 0, /* Winning (all), Window V1 (ids 5-9): per-sector challenge indices */
    CZK_POST_API_1_2 = 2, /* Window V1_2 (ids 10-14; FFI "V1_1"): challenge index = n */
} czk_post_api;

/* filecoin-proofs constants.rs */
#define CZK_POST_WINNING_CHALLENGES 66u /* WINNING_POST_CHALLENGE_COUNT (one sector) */
#define CZK_POST_WINDOW_CHALLENGES 10u  /* WINDOW_POST_CHALLENGE_COUNT */

/* A sector size of PoSt. */
typedef struct czk_post_shape {
    const char *name;     /* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" */
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32: the TreeR leaves */
    /* TreeR (Poseidon): base-sub-top arities, 0 = level absent. */
    unsigned base_arity, sub_arity, top_arity;
    unsigned window_sectors; /* WINDOW_POST_SECTOR_COUNT: 2, 2349 or 2300 */
    /* v28 parameter ids (the hash in the file names; parameters.json). */
    const char *window_param_id;
    const char *winning_param_id;
} czk_post_shape;

#define CZK_POST_SHAPE_COUNT 5
/* 2KiB, 8MiB, 512MiB, 32GiB, 64GiB, in that order. */
extern const czk_post_shape czk_post_shapes[CZK_POST_SHAPE_COUNT];

/* The shape of a sector size in bytes, or NULL. */
const czk_post_shape *czk_post_shape_for_size(uint64_t sector_size);

/* A registered PoSt proof (RegisteredPoStProof as proofs-api numbers them). */
typedef struct czk_post_proof {
    uint64_t id; /* 0-4 Winning 2KiB..64GiB; 5-9 Window V1; 10-14 Window V1_2 */
    czk_post_kind kind;
    czk_post_api api;
    const czk_post_shape *shape;
} czk_post_proof;

/*
 * Looks up RegisteredPoStProof id `registered_proof` (0..14; Curio's
 * abi.RegisteredPoStProof uses the same numbers, its "V1_1" being
 * proofs-api's V1_2).
 * Returns: CZK_OK; CZK_ERR_UNSUPPORTED for another id (out untouched).
 */
CZK_NODISCARD czk_status czk_post_proof_lookup(uint64_t registered_proof, czk_post_proof *out,
                                               czk_err *err) CZK_NONNULL(2);

/*
 * The circuit's configuration.
 *   nodes       TreeR leaves (sector nodes);
 *   base/sub/top_arity  the TreeR shape (see czk_por_tree_for_leaves);
 *   sectors     sectors per partition, ≥ 1;
 *   challenges  challenges per sector, ≥ 1.
 * Every configuration upstream's tests build is accepted (e.g. 64 leaves
 * of arity 8-4, 3 sectors × 5 challenges).
 */
typedef struct czk_post_config {
    uint64_t nodes;
    unsigned base_arity, sub_arity, top_arity;
    unsigned sectors;
    unsigned challenges;
} czk_post_config;

/* The configuration of `kind` for a shape (Winning: 66 × 1; Window:
 * window_sectors × 10). */
void czk_post_config_for(czk_post_config *out, czk_post_kind kind, const czk_post_shape *shape)
    CZK_NONNULL(1, 3);

/*
 * Checks a configuration and derives its TreeR (tree may be NULL).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG naming the bad field (no sectors or
 *   challenges, inputs beyond 2^31, a tree the leaves do not fill).
 */
CZK_NODISCARD czk_status czk_post_config_check(const czk_post_config *cfg, czk_por_tree *tree,
                                               czk_err *err) CZK_NONNULL(1);

/* Inputs of the circuit, ONE included: 1 + sectors · (1 + challenges). */
uint32_t czk_post_num_inputs(const czk_post_config *cfg) CZK_NONNULL(1);

/* ---- the witness ---- */

/*
 * One inclusion path (as the vanilla PathElements give it, all levels of
 * base, sub and top in order): per level the node's position among its
 * siblings (< arity) and the arity − 1 sibling hashes, 32-byte LE canonical
 * Fr each, level by level.
 */
typedef struct czk_post_path {
    uint32_t *positions; /* czk_por_tree_levels entries */
    uint8_t *siblings;   /* 32 · czk_por_tree_siblings bytes */
} czk_post_path;

/* One sector of the partition (a SectorProof with its comm_r). */
typedef struct czk_post_sector {
    uint64_t sector_id;
    uint8_t comm_r[32];
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    uint8_t (*leaves)[32]; /* challenges entries: the challenged leaves */
    uint8_t (*roots)[32];  /* challenges entries: each proof's root (pre-check only) */
    czk_post_path *paths;  /* challenges entries */
} czk_post_sector;

/* The witness of one partition: config.sectors sectors. */
typedef struct czk_post_witness {
    czk_post_config config;
    czk_post_sector *sectors;
} czk_post_witness;

/*
 * Allocates a zeroed witness for cfg in one block, every array sized and
 * carved. Free with czk_post_witness_free.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (configuration); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_post_witness_alloc(czk_post_witness **out, const czk_post_config *cfg,
                                                czk_err *err) CZK_NONNULL(1, 2);
void czk_post_witness_free(czk_post_witness *w);

/* ---- synthesis and counts ---- */

/*
 * Synthesizes the circuit into cs (any mode).
 * In:  cfg  the configuration (checked);
 *      w    the witness, or NULL for all-zero values (RECORD). If given,
 *           w->config must equal *cfg.
 * Returns: the cs's status; CZK_ERR_INVALID_ARG (configuration, a position
 *   ≥ its arity), CZK_ERR_MISMATCH (w->config differs), CZK_ERR_FR_RANGE (a
 *   value ≥ r, naming the sector, challenge and field). Every failure is
 *   also recorded in cs.
 */
CZK_NODISCARD czk_status czk_post_synthesize(czk_cs *cs, const czk_post_config *cfg,
                                             const czk_post_witness *w) CZK_NONNULL(1, 2);

/* A czk_circuit_fn: ctx is a czk_post_circuit. */
typedef struct czk_post_circuit {
    const czk_post_config *config;
    const czk_post_witness *witness; /* may be NULL */
} czk_post_circuit;
czk_status czk_post_circuit_fn(czk_cs *cs, void *ctx);

/*
 * Records the shape (RECORD mode, finalization included); free with
 * czk_shape_free. The sectors are the circuit's parts (czk_cs_run_parts):
 * sectors 0 and 1 are recorded, the others written as copies of sector 0
 * with their variables shifted, byte for byte the serial recording's shape
 * (czk_cs_record of czk_post_circuit_fn). A 32GiB WindowPoSt partition
 * (2349 sectors) records 2 sectors and copies 2347.
 * Args: pool  the copies and the column pass run on its threads; NULL: on
 *             the calling thread.
 * Returns: CZK_OK; the errors of czk_post_synthesize and czk_cs_run.
 */
CZK_NODISCARD czk_status czk_post_record(czk_shape **out, const czk_post_config *cfg,
                                         czk_pool *pool, const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * The assignment of one partition (WITNESS mode); free with czk_witness_free.
 * Args: pool  sectors 1 .. are synthesized on its threads, each into its
 *             place (czk_cs_run_parts); NULL: serially on the calling thread.
 *             The result is the same either way.
 * Returns: as czk_post_record.
 */
CZK_NODISCARD czk_status czk_post_witness_generate(czk_witness *out, const czk_post_config *cfg,
                                                   const czk_post_witness *w, czk_pool *pool,
                                                   const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * czk_post_witness_generate into the caller's arrays (the engine's reused
 * witness buffers): buf arrives with buf->inputs and buf->aux pointing at
 * arrays of buf->num_inputs and buf->num_aux values
 * (czk_cs_set_witness_buffers) and returns with the same arrays and the
 * witness's counts; never pass it to czk_witness_free. pool: as
 * czk_post_witness_generate.
 * Returns: as czk_post_record; CZK_ERR_INVALID_ARG (arrays too small: the
 *   message names which).
 */
CZK_NODISCARD czk_status czk_post_witness_generate_into(czk_witness *buf,
                                                        const czk_post_config *cfg,
                                                        const czk_post_witness *w, czk_pool *pool,
                                                        const atomic_int *cancel, czk_err *err)
    CZK_NONNULL(1, 2);

/* The size of a partition's R1CS, as the recorded shape would give it. */
typedef czk_shape_counts czk_post_counts;

/*
 * The counts of cfg's circuit without recording it whole: sectors are
 * independent (each allocates its own variables and emits the same rows),
 * so the shapes of one and of two sectors are recorded and every count is
 * c(1) + (sectors − 1) · (c(2) − c(1)). Milliseconds and a few MiB for any
 * configuration (a 32GiB WindowPoSt partition records 2 of its 2349
 * sectors). Tests hold it to whole recordings.
 * Returns: CZK_OK; the errors of czk_post_record.
 */
CZK_NODISCARD czk_status czk_post_count(czk_post_counts *out, const czk_post_config *cfg,
                                        czk_err *err) CZK_NONNULL(1, 2);

/* The counts of a recorded shape (czk_shape_counts_of). */
void czk_post_counts_of_shape(czk_post_counts *out, const czk_shape *shape) CZK_NONNULL(1, 2);

/* ---- challenges and public inputs ---- */

/*
 * utils.rs get_challenge_index: the index hashed for challenge n of the
 * partition's sector i (sector_index = k · sectors_per_partition + i):
 * API 1.0: sector_index · challenges + n; API 1.2: n.
 */
uint64_t czk_post_challenge_index(czk_post_api api, uint64_t sector_index, unsigned challenges,
                                  unsigned n);

/*
 * generate_leaf_challenge_inner: SHA-256(randomness ‖ sector_id u64 LE ‖
 * challenge_index u64 LE), its first 8 bytes as a u64 LE, mod nodes.
 * `randomness` is not checked here (czk_post_randomness_check).
 */
uint64_t czk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                 uint64_t challenge_index, uint64_t nodes) CZK_NONNULL(1);

/*
 * The randomness must be a canonical Fr (as_safe_commitment). Curio masks
 * byte 31 with 0x3f before it sends; an unmasked value is refused, never
 * masked here.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE "PoSt randomness is not a canonical Fr
 *   (byte 31 is 0x.., Curio masks it with 0x3f): ...".
 */
CZK_NODISCARD czk_status czk_post_randomness_check(const uint8_t randomness[32], czk_err *err)
    CZK_NONNULL(1);

/* A sector as the public inputs see it. */
typedef struct czk_post_pub_sector {
    uint64_t sector_id;
    uint8_t comm_r[32];
} czk_post_pub_sector;

/*
 * The challenged leaves of one partition's sectors (before padding):
 * out[i · challenges + n] for sector i < nsectors, with sector_index =
 * k · cfg->sectors + i.
 * Returns: CZK_OK; CZK_ERR_FR_RANGE (randomness); CZK_ERR_INVALID_ARG (no
 *   sectors, more than cfg->sectors, a bad configuration).
 */
CZK_NODISCARD czk_status czk_post_challenges(uint64_t *out, const czk_post_config *cfg,
                                             czk_post_api api, const uint8_t randomness[32],
                                             const czk_post_pub_sector *sectors, size_t nsectors,
                                             uint64_t k, czk_err *err) CZK_NONNULL(1, 2, 4, 5);

/*
 * FallbackPoStCompound::generate_public_inputs for partition k, ONE
 * excluded: for each of the partition's sectors, comm_r then its challenged
 * leaf indices (czk_post_challenges); if nsectors < cfg->sectors, the last
 * sector's block is repeated until there are cfg->sectors blocks. That is
 * czk_post_num_inputs(cfg) − 1 values, the circuit's inputs 1.. for a valid
 * witness. `sectors` are the partition's own (Curio sends only those).
 * WinningPoSt: one sector, passed as 66 copies (czk_post_winning_sectors),
 * k = 0, API 1.0.
 * Returns: as czk_post_challenges; CZK_ERR_FR_RANGE also for a comm_r ≥ r
 *   (naming the sector id).
 */
CZK_NODISCARD czk_status czk_post_public_inputs(czk_fr *out, const czk_post_config *cfg,
                                                czk_post_api api, const uint8_t randomness[32],
                                                const czk_post_pub_sector *sectors, size_t nsectors,
                                                uint64_t k, czk_err *err) CZK_NONNULL(1, 2, 4, 5);

/* The 66 copies of WinningPoSt's one sector (out holds CZK_POST_WINNING_CHALLENGES). */
void czk_post_winning_sectors(czk_post_pub_sector *out, const czk_post_pub_sector *sector)
    CZK_NONNULL(1, 2);

/* ---- vanilla proofs (bincode FallbackPoStSectorProof) ---- */

/*
 * One parsed FallbackPoStSectorProof (spec §3): sector_id, comm_r, then
 * vanilla_proof.sectors, a Vec<SectorProof>, each {inclusion_proofs:
 * Vec<MerkleProof>, comm_c, comm_r_last}; a MerkleProof is a u32 tag, 0
 * Single{root, leaf, path}, 1 Sub{base_path, sub_path, root, leaf}, 2 Top
 * {base_path, sub_path, top_path, root, leaf}; an InclusionPath a Vec of
 * PathElement{hashes: Vec<[u8; 32]>, index: u64}. Window sectors hold one
 * SectorProof of 10 proofs; WinningPoSt's one blob holds one SectorProof of
 * 66 (or 66 SectorProofs of one: both are accepted).
 */
typedef struct czk_post_vanilla {
    uint64_t sector_id;
    uint8_t comm_r[32];
    uint8_t comm_c[32];      /* of SectorProof 0; every SectorProof must agree */
    uint8_t comm_r_last[32]; /* likewise */
    unsigned challenges;     /* inclusion proofs over all SectorProofs */
    uint8_t (*leaves)[32];   /* challenges entries */
    uint8_t (*roots)[32];
    czk_post_path *paths; /* levels and siblings of the tree it was checked against */
} czk_post_vanilla;

/*
 * Parses one blob, checking it against `tree` (the shape's TreeR): the
 * MerkleProof variant the tree has (Single for 8-0-0, Sub for 8-8-0, Top
 * for 8-8-2), base_levels base path elements and one sub and top element,
 * arity − 1 hashes and an index < arity in each, `challenges` proofs in all
 * (0: any number), every 32-byte value a canonical Fr, nothing after the
 * end, every SectorProof with the same comm_c and comm_r_last.
 * Errors name the sector id (once read), the proof (challenge) and the
 * field: "PoSt vanilla proof of sector 7: challenge 3: base_path[2].index
 * is 9, the arity is 8".
 * Returns: CZK_OK; CZK_ERR_TRUNCATED; CZK_ERR_FORMAT; CZK_ERR_MISMATCH (a
 *   proof of another tree or challenge count); CZK_ERR_FR_RANGE; CZK_ERR_NOMEM.
 *   Free with czk_post_vanilla_free.
 */
CZK_NODISCARD czk_status czk_post_vanilla_parse(czk_post_vanilla **out, const uint8_t *data,
                                                size_t len, const czk_por_tree *tree,
                                                unsigned challenges, czk_err *err)
    CZK_NONNULL(1, 4);
void czk_post_vanilla_free(czk_post_vanilla *v);

/* ---- from vanilla proofs: witness and pre-check ---- */

/*
 * The leaves a vanilla proof must open, in its proof order. WindowPoSt:
 * proof n opens czk_post_leaf_challenge(randomness, sector_id,
 * czk_post_challenge_index(api, sector_index, v->challenges, n)), with
 * sector_index = k · sectors_per_partition + (the sector's place in the
 * partition). WinningPoSt (66 one-challenge circuit sectors from one
 * sector): proof j opens challenge index czk_post_challenge_index(api, j,
 * 1, 0), i.e. j; sector_index is unused.
 * Out: out[v->challenges].
 */
void czk_post_vanilla_leaves(uint64_t *out, const czk_post_vanilla *v, czk_post_kind kind,
                             czk_post_api api, uint64_t sector_index, uint64_t nodes,
                             const uint8_t randomness[32]) CZK_NONNULL(1, 2, 7);

/*
 * The vanilla pre-check of one partition, before any GPU work
 * (FallbackPoSt::verify's checks): for each sector, Poseidon-2(comm_c,
 * comm_r_last) = comm_r; for each of its inclusion proofs, the root equals
 * comm_r_last, the path from the leaf hashes to comm_r_last, and the leaf
 * index the path encodes is the challenged leaf (czk_post_vanilla_leaves).
 * In:  v, n        the partition's vanilla proofs (WindowPoSt: 1..sectors
 *                  of them, as Curio sends them; WinningPoSt: exactly one,
 *                  with cfg->sectors proofs), parsed against cfg's tree;
 *      k           the partition index (WindowPoSt challenge indices).
 * Out: bad         (may be NULL) the index in v of the first bad sector;
 *                  untouched on success.
 * Returns: CZK_OK; CZK_ERR_VERIFY "PoSt vanilla proof of sector <id> (<i>
 *   of <n> in the partition) does not verify: challenge <j>: ..." naming
 *   what fails, so that the sector can be declared faulty; CZK_ERR_FR_RANGE
 *   (randomness); CZK_ERR_MISMATCH (proof counts that do not fit cfg);
 *   CZK_ERR_INVALID_ARG.
 */
CZK_NODISCARD czk_status czk_post_precheck(const czk_post_vanilla *const *v, size_t n,
                                           const czk_post_config *cfg, czk_post_kind kind,
                                           czk_post_api api, const uint8_t randomness[32],
                                           uint64_t k, size_t *bad, czk_err *err)
    CZK_NONNULL(1, 3, 6);
/*
 * czk_post_precheck with the sectors checked in parallel on `pool` (NULL or
 * one thread: in order, as czk_post_precheck): a 32GiB WindowPoSt partition
 * of 2349 sectors is about 8 ms of Poseidon per sector on one core. Same
 * result and message: the first bad sector in v's order is the one named.
 */
CZK_NODISCARD czk_status czk_post_precheck_on(const czk_post_vanilla *const *v, size_t n,
                                              const czk_post_config *cfg, czk_post_kind kind,
                                              czk_post_api api, const uint8_t randomness[32],
                                              uint64_t k, czk_pool *pool, size_t *bad, czk_err *err)
    CZK_NONNULL(1, 3, 6);

/*
 * Fills the witness of a partition from its vanilla proofs, as upstream's
 * prove_with_vanilla builds the circuit (partition index 0 into the
 * sectors given). WindowPoSt: sector i from v[i], the last one repeated up
 * to cfg->sectors; WinningPoSt: circuit sector j from v[0]'s proof j, all
 * with v[0]'s commitments. The vanilla proofs may be freed afterwards.
 * Returns: CZK_OK; CZK_ERR_MISMATCH (counts or tree that do not fit w's
 *   configuration); CZK_ERR_INVALID_ARG.
 */
CZK_NODISCARD czk_status czk_post_witness_fill(czk_post_witness *w,
                                               const czk_post_vanilla *const *v, size_t n,
                                               czk_post_kind kind, czk_err *err) CZK_NONNULL(1, 2);

/* ---- keys and shapes on disk (src/post/keys.c) ---- */

#define CZK_POST_KEY_NAME_MAX 160 /* a key file name without extension, NUL included */

/*
 * The two file names (without extension) of the keys of `kind`'s circuit for
 * `shape`, the one place they are made:
 *   filecoin  the v28 ceremony name, "v28-proof-of-spacetime-fallback-
 *             merkletree-poseidon_hasher-<base>-<sub>-<top>-<param id>" with
 *             the shape's window_param_id or winning_param_id
 *             (parameters.json; spec post-snap.md appendix), e.g.
 *             "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-
 *             8-0-0-0170db1f…96b0" for WindowPoSt 2KiB;
 *   test      czk's test keys (`czk setup`, known toxic waste: they prove and
 *             verify with each other only), "czk-test-v28-proof-of-spacetime-
 *             fallback-<window|winning>-<base>-<sub>-<top>-<size>", e.g.
 *             "czk-test-v28-proof-of-spacetime-fallback-window-8-0-0-2KiB".
 * Out: filecoin, test (each may be NULL): CZK_POST_KEY_NAME_MAX bytes.
 */
void czk_post_key_names(czk_post_kind kind, const czk_post_shape *shape,
                        char filecoin[CZK_POST_KEY_NAME_MAX], char test[CZK_POST_KEY_NAME_MAX])
    CZK_NONNULL(2);

/*
 * Finds the key file of `kind`'s circuit for `shape` in `dir`
 * (czk_key_find): the Filecoin name + ext if that file exists, else the
 * test-key name + ext (czk_post_key_names).
 * Out: path  dir/name (at most cap bytes with the NUL); found (may be NULL):
 *   which name it was.
 * Returns: CZK_OK; CZK_ERR_IO "no <ext> key for WindowPoSt of 2KiB sectors
 *   in <dir> (looked for <name1> and <name2>)"; CZK_ERR_INVALID_ARG if a
 *   path does not fit.
 */
CZK_NODISCARD czk_status czk_post_find_key(char *path, size_t cap, czk_key_kind *found,
                                           const char *dir, czk_post_kind kind,
                                           const czk_post_shape *shape, const char *ext,
                                           czk_err *err) CZK_NONNULL(1, 4, 6, 7);

/*
 * The R1CS of `kind`'s partition circuit for `shape` (czk_post_config_for)
 * through the shape cache (czk_shape_cache_load):
 * <cache_dir>/post-v28-<window|winning>-<size>.shape, or recorded
 * (czk_post_record) and written there.
 * Args: cache_dir  NULL or "": record, neither read nor write a cache.
 * Out: *out (czk_shape_free); *recorded (may be NULL): true if recorded now.
 * Returns: CZK_OK; czk_post_record's errors.
 */
CZK_NODISCARD czk_status czk_post_shape_load_in(czk_shape **out, bool *recorded, czk_post_kind kind,
                                                const czk_post_shape *shape, const char *cache_dir,
                                                czk_err *err) CZK_NONNULL(1, 4);

#ifdef __cplusplus
}
#endif
#endif
