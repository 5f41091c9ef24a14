/*
 * czk — where keys and recorded shapes live on disk, for every proof kind.
 *
 *   parameter cache  the directory of Filecoin's Groth16 parameter files
 *                    ($FIL_PROOFS_PARAMETER_CACHE, filecoin-proofs'
 *                    parameter_cache.rs default otherwise);
 *   test keys        czk's test-key directory, czk_cache_dir("test-keys")
 *                    ($CZK_CACHE_DIR/test-keys, default
 *                    ~/.cache/czk/test-keys): where `czk setup` writes;
 *   key search path  one rule for every command and the daemon: the
 *                    directory the caller names (--param-cache,
 *                    srs.param_cache), then the parameter cache, then the
 *                    test keys; in each, a circuit's key file by its
 *                    Filecoin (ceremony) name first, then by the name
 *                    czk's test keys of that circuit carry (no Filecoin
 *                    file has it);
 *   czk's cache      $CZK_CACHE_DIR, default ~/.cache/czk: shapes/ (the
 *                    shape cache below), stamps/ (params digests, groth16.h),
 *                    test-keys/;
 *   shape cache      a circuit's recorded R1CS (czk_shape_write format) as
 *                    <cache>/shapes/<name>.shape, recorded once and read
 *                    back by later runs.
 * A kind names its circuits' files (PoRep: porep_prove.h); nothing here
 * knows a circuit.
 */
#ifndef CZK_KEYS_H
#define CZK_KEYS_H

#include "czk/common.h"
#include "czk/r1cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The parameter cache directory: $FIL_PROOFS_PARAMETER_CACHE if set and
 * non-empty, else /var/tmp/filecoin-proof-parameters (filecoin-proofs
 * parameter_cache.rs). Writes at most cap bytes with the NUL.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if it does not fit.
 */
CZK_NODISCARD czk_status czk_param_cache_dir(char *out, size_t cap, czk_err *err) CZK_NONNULL(1);

/*
 * czk's cache directory for `sub` ("shapes", "stamps", "test-keys"):
 * $CZK_CACHE_DIR/sub if CZK_CACHE_DIR is set and non-empty, else
 * $HOME/.cache/czk/sub; sub NULL: the directory itself. Defined in
 * src/util/cache.c, the one place that reads CZK_CACHE_DIR.
 * Returns: true and out (at most cap bytes with the NUL); false if neither
 *   variable is set or the path does not fit.
 */
bool czk_cache_dir(char *out, size_t cap, const char *sub) CZK_NONNULL(1);

/* Which name a key file was found under (czk_key_find). */
typedef enum czk_key_kind {
    CZK_KEY_FILECOIN = 0, /* the Filecoin ceremony file name */
    CZK_KEY_TEST = 1,     /* czk's test-key name */
} czk_key_kind;

#define CZK_KEY_DIRS 3       /* directories of the key search path, at most */
#define CZK_KEY_DIR_MAX 4096 /* bytes of one, with the NUL */

/* The key search path (czk_key_path_get). */
typedef struct czk_key_path {
    unsigned n;                              /* directories in dir[] */
    char dir[CZK_KEY_DIRS][CZK_KEY_DIR_MAX]; /* in search order */
} czk_key_path;

/*
 * The key search path: `dir` when given (non-NULL and non-empty: the
 * caller's --param-cache or srs.param_cache), then the parameter cache
 * (czk_param_cache_dir), then czk's test keys (czk_cache_dir("test-keys"),
 * left out when neither CZK_CACHE_DIR nor HOME is set). A directory named
 * twice (the same string up to trailing slashes, or the same directory on
 * disk) is kept once, at its first place. The directories need not exist.
 * Out: *out.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG if a directory does not fit
 *   CZK_KEY_DIR_MAX bytes (it is named).
 */
CZK_NODISCARD czk_status czk_key_path_get(czk_key_path *out, const char *dir, czk_err *err)
    CZK_NONNULL(1);

/*
 * Finds a circuit's key file on the key search path (czk_key_path_get of
 * dir): in each directory in turn, <d>/<filecoin_name><ext> if that is a
 * regular file, else <d>/<test_name><ext>; the first found wins.
 * In:  dir   the caller's directory, or NULL / "" for none;
 *      filecoin_name, test_name  the circuit's two file names, without ext;
 *      ext   ".params", ".vk", ...; what  the circuit, for the message
 *      ("2KiB sectors").
 * Out: path  (at most cap bytes with the NUL); kind (may be NULL).
 * Returns: CZK_OK; CZK_ERR_IO "no <ext> key for <what> in <d1>, <d2> or
 *   <d3> (looked for <name1><ext> and <name2><ext>); found there: <the
 *   <ext> files those directories hold>" (a directory that does not exist
 *   is marked "(absent)"; "found no <ext> file there" when there is none)
 *   when neither name is in any of them; CZK_ERR_INVALID_ARG if a path
 *   does not fit.
 */
CZK_NODISCARD czk_status czk_key_find(char *path, size_t cap, czk_key_kind *kind, const char *dir,
                                      const char *filecoin_name, const char *test_name,
                                      const char *ext, const char *what, czk_err *err)
    CZK_NONNULL(1, 5, 6, 7, 8);

/* Records a circuit's shape (the shape cache's fallback). */
typedef czk_status (*czk_shape_record_fn)(void *ctx, czk_shape **out, czk_err *err);

/*
 * A circuit's recorded R1CS through the shape cache: read from
 * <cache_dir>/<name>.shape when that file loads and has num_inputs inputs;
 * else recorded by `record` and written there (the directory made as
 * needed; a cache that cannot be written is not an error).
 * Args: cache_dir  the shape cache (srs.shape_cache, or
 *                  czk_cache_dir("shapes")); NULL or "": record only,
 *                  neither read nor write a cache.
 * Out: *out (czk_shape_free); *recorded (may be NULL): true if recorded now.
 * Returns: CZK_OK; record's errors.
 */
CZK_NODISCARD czk_status czk_shape_cache_load(czk_shape **out, bool *recorded, const char *name,
                                              uint32_t num_inputs, const char *cache_dir,
                                              czk_shape_record_fn record, void *record_ctx,
                                              czk_err *err) CZK_NONNULL(1, 3, 6);

#ifdef __cplusplus
}
#endif
#endif
