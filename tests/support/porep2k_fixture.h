/*
 * One 2KiB PoRep partition for the GPU backend's test (tests/cuda/porep.c)
 * and benchmark (bench/gpu.c, porep2k_gpu_ms): the recorded shape, TEST
 * keys, a C1, the witness of partition 0 and its chain-derived public
 * inputs. Header-only (static functions), C; in tests/support, included by
 * a test and a benchmark (never by the backend it tests).
 *
 *   shape    czk_porep_shape_load (the shape cache, $CZK_CACHE_DIR/shapes);
 *   keys     $CZK_CACHE_DIR/gpu-test/porep-v28-2KiB-seed1.params (default
 *            ~/.cache/czk), made once by czk_test_keys (sector.h, seed 1)
 *            and written stamped, then read; never committed;
 *   C1       czk_test_seal's default sector (sector.h): StackedDrg2KiBV1_1
 *            (id 5), miner 1000, sector 1, as bench/porep.c and
 *            scripts/demo.sh make it;
 *   witness  czk_porep_witness_from_c1 + czk_porep_witness_generate, k = 0;
 *   inputs   czk_porep_chain_inputs with the C1's replica_id.
 */
#ifndef CZK_TEST_POREP2K_FIXTURE_H
#define CZK_TEST_POREP2K_FIXTURE_H

#include "czk/groth16.h"
#include "czk/porep_c1.h"
#include "czk/porep_circuit.h"
#include "czk/porep_precheck.h"
#include "czk/porep_prove.h"
#include "czk/porep_shapes.h"
#include "czk/seal.h"
#include "sector.h"
#include "util/cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct czk_p2k {
    czk_shape *shape;
    czk_params *params;
    czk_pvk *pvk;
    czk_c1 *c1;
    czk_witness w;
    czk_fr *inputs; /* ONE excluded */
    size_t num_inputs;
    bool keys_made; /* the keys were made now (not read from the cache) */
} czk_p2k;

static inline void czk_p2k_free(czk_p2k *f) {
    czk_shape_free(f->shape);
    czk_params_free(f->params);
    if (f->pvk) czk_pvk_free(f->pvk);
    free(f->pvk);
    czk_c1_free(f->c1);
    czk_witness_free(&f->w);
    free(f->inputs);
    memset(f, 0, sizeof *f);
}

static inline czk_status czk_p2k_make(czk_p2k *f, czk_pool *pool, czk_err *err) {
    memset(f, 0, sizeof *f);
    const czk_porep_shape *ps = czk_porep_shape_for_size(2048);
    czk_status st = czk_porep_shape_load(&f->shape, NULL, ps, true, err);
    if (st) return czk_err_wrap(err, "2KiB fixture: shape");
    char dir[900], path[1000];
    if (!czk_cache_dir(dir, sizeof dir, "gpu-test")) snprintf(dir, sizeof dir, "/tmp/czk-gpu-test");
    snprintf(path, sizeof path, "%s/porep-v28-2KiB-seed1.params", dir);
    czk_params_read_opts ro = {.pool = pool};
    if (access(path, R_OK) == 0 && !czk_params_read(&f->params, path, &ro, NULL, err) &&
        !czk_params_check_shape(f->params, f->shape, err)) {
        /* cached */
    } else {
        czk_params_free(f->params);
        f->params = NULL;
        if ((st = czk_test_keys(&f->params, f->shape, 1, pool, err)))
            return czk_err_wrap(err, "2KiB fixture: setup");
        f->keys_made = true;
        bool stamped = false;
        czk_err werr;
        if (czk_test_mkdirs(dir) &&
            czk_params_write_stamped(f->params, path, NULL, &stamped, pool, &werr))
            fprintf(stderr, "2KiB fixture: keys not cached: %s\n", werr.msg);
    }
    f->pvk = calloc(1, sizeof *f->pvk);
    if (!f->pvk) return czk_errf(err, CZK_ERR_NOMEM, "2KiB fixture: pvk");
    if ((st = czk_pvk_prepare(f->pvk, &f->params->vk, err))) return st;
    if ((st = czk_test_seal(&f->c1, NULL, pool, err))) return czk_err_wrap(err, "2KiB fixture: C1");
    czk_porep_witness *pw = NULL;
    czk_porep_config cfg;
    czk_porep_config_for_shape(&cfg, ps);
    if (!(st = czk_porep_witness_from_c1(&pw, f->c1, 0, err)))
        st = czk_porep_witness_generate(&f->w, &cfg, pw, NULL, err);
    czk_porep_witness_free(pw);
    if (st) return czk_err_wrap(err, "2KiB fixture: witness");
    f->num_inputs = czk_c1_num_public_inputs(f->c1);
    f->inputs = calloc(f->num_inputs ? f->num_inputs : 1, sizeof *f->inputs);
    if (!f->inputs) return czk_errf(err, CZK_ERR_NOMEM, "2KiB fixture: inputs");
    if ((st = czk_porep_chain_inputs(f->inputs, f->c1, f->c1->replica_id.b, NULL, 0, err)))
        return czk_err_wrap(err, "2KiB fixture: public inputs");
    return CZK_OK;
}

#endif
