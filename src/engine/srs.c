/*
 * The SRS cache and the memory budget.
 *
 * One budget (memory.total_budget, or what the machine allows less
 * memory.safety_margin: MemTotal, or the memory.max of the process's cgroup
 * v2 and its ancestors when that is smaller, as in a container or a systemd
 * unit with MemoryMax) is shared by four consumers, each charged before it
 * allocates: SRS entries (the host copy of a circuit's parameters), shapes
 * (its recorded R1CS), per-partition working memory (pipeline.c) and the
 * witness buffers (wpool.c). A consumer that does not fit waits; it never
 * over-commits, and one that can never fit fails naming what it needs and
 * what the budget has, instead of being killed by the kernel. When memory is
 * short, idle witness buffers are freed first; then entries that no job
 * holds and that have been idle for memory.eviction_min_idle are evicted:
 * those that served lower priorities first (an entry keeps the highest of
 * its kind's default priority and the priorities of the jobs that held it,
 * so PoRep's keys go before WinningPoSt's), least recently used first
 * among equals (cuzk's rule, cuzk-engine.md §4 "SRS manager"); an entry a
 * job holds is never evicted. An explicit czk_engine_evict drops an unheld
 * entry at once. Device memory is the backend's: a circuit whose keys do
 * not fit the VRAM left (gpus.vram_budget) stays in host memory, page-locked
 * and streamed (tier WARM), while those loaded earlier stay on the device.
 *
 * An entry is keyed by circuit id ("porep-32g", "test-10") and owned by the
 * proof kind that can load it. Loading runs on one loader thread, so that
 * the engine accepts and queues work while keys load: a job's partitions
 * simply stay in the synthesis queue until their entry is READY. The load
 * reserves the kind's size estimate first (the .params file size: the
 * in-memory affine points are as large as their uncompressed encoding),
 * then corrects the charge to what was really loaded. After the load every
 * device's backend, one device after another, may take its own copy of the
 * parameters onto its device (ops->load; several GPUs hold one copy each,
 * device_mask says which; a device that has failed is skipped); where
 * every device did, the host vectors it no longer reads are freed
 * and their bytes return to the budget ("device-resident where VRAM
 * allows"). Otherwise the host copy stays, in anonymous page-aligned memory
 * advised for huge pages, ready to be pinned by a CUDA backend. Likewise the
 * shape: where every device runs the SpMV from its own copy of the matrices
 * (the device backend's shape_resident, czk_engine_opts.gpu), the host CSR arrays (8.3 GiB
 * at 32GiB) are freed. What stays on the host is what host code still reads:
 * the counts and the density bitmaps (the CUDA backend's find() and index
 * lists, the CPU's G2 MSM in finalization), the coefficient table, the vk
 * and ic (verification), and the vectors a device left to the CPU (b_g2 when
 * its MSM is deferred). The CPU backend reads everything: nothing is freed.
 *
 * Before the entry is READY its pool of witness buffers is filled
 * (czk_wpool_prefill, wpool.c): as many as the pipeline holds at once, as
 * far as the budget allows beside the circuits queued to load, so that no
 * page-locking happens while the device proves; its time is part of the
 * load's (load_ms, SRS_LOAD_END witness_buffers= witness_buffers_ms=).
 *
 * Reference counts: a job holds its entry from submit until its last
 * partition has left the pipeline (a cancelled job's partition may still be
 * on the device), so an entry in use is never evicted under it.
 */
#include "engine/internal.h"

#include "czk/keys.h"
#include "util/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t meminfo_total(const char *root) {
    char path[1100];
    snprintf(path, sizeof path, "%s/proc/meminfo", root);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) break;
    fclose(f);
    return (uint64_t)kb * 1024u;
}

uint64_t czk_mem_total(void) {
    return meminfo_total("");
}

/* memory.max of one cgroup directory: bytes, 0 for "max", a missing or unreadable file. */
static uint64_t cgroup_max_of(const char *root, const char *dir) {
    char path[1500];
    snprintf(path, sizeof path, "%s/sys/fs/cgroup%s%smemory.max", root, dir,
             dir[strlen(dir) - 1] == '/' ? "" : "/");
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[64];
    unsigned long long v = 0;
    char tail;
    bool ok = fgets(line, sizeof line, f) && sscanf(line, "%llu%c", &v, &tail) >= 1;
    fclose(f);
    return ok ? (uint64_t)v : 0; /* "max" does not scan */
}

void czk_mem_limit_read(czk_mem_limit *out, const char *root) {
    memset(out, 0, sizeof *out);
    if (!root || !strcmp(root, "/")) root = "";
    out->mem_total = meminfo_total(root);
    char path[1100], line[1024], cg[1024] = "";
    snprintf(path, sizeof path, "%s/proc/self/cgroup", root);
    FILE *f = fopen(path, "r");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "0::", 3)) { /* the cgroup v2 (unified) hierarchy */
                snprintf(cg, sizeof cg, "%s", line + 3);
                cg[strcspn(cg, "\r\n")] = 0;
                break;
            }
        fclose(f);
    }
    /* the tightest memory.max from the process's cgroup up to the root */
    if (cg[0] == '/') {
        size_t n = strlen(cg);
        for (;;) {
            uint64_t m = cgroup_max_of(root, cg);
            if (m && (!out->cgroup_max || m < out->cgroup_max)) {
                out->cgroup_max = m;
                snprintf(out->cgroup, sizeof out->cgroup, "%s", cg);
            }
            if (n <= 1) break;
            while (n > 1 && cg[n - 1] != '/')
                n--;
            if (n > 1) n--; /* drop the slash too, unless it is the root */
            cg[n] = 0;
        }
    }
    out->limit = out->mem_total;
    if (out->cgroup_max && (!out->limit || out->cgroup_max < out->limit))
        out->limit = out->cgroup_max;
}

uint64_t czk_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, res = 0;
    int n = fscanf(f, "%llu %llu", &size, &res);
    fclose(f);
    return n == 2 ? (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE) : 0;
}

static uint64_t params_host_bytes(const czk_params *p) {
    uint64_t g1 = sizeof(czk_g1_affine), g2 = sizeof(czk_g2_affine);
    uint64_t n = (uint64_t)p->vk.ic_len * g1;
    if (p->h) n += (uint64_t)p->h_len * g1;
    if (p->l) n += (uint64_t)p->l_len * g1;
    if (p->a) n += (uint64_t)p->a_len * g1;
    if (p->b_g1) n += (uint64_t)p->b_g1_len * g1;
    if (p->b_g2) n += (uint64_t)p->b_g2_len * g2;
    const czk_params_lagrange *lf = p->lagrange;
    if (lf) {
        if (lf->h) n += ((uint64_t)1 << lf->log_n) * g1;
        if (lf->l) n += (uint64_t)lf->num_aux * g1;
        n += (uint64_t)lf->num_inputs * g1;
    }
    return n;
}

/* Host bytes of a form's vectors. */
static uint64_t lagrange_bytes(const czk_params_lagrange *lf) {
    return (((uint64_t)1 << lf->log_n) + lf->num_aux + lf->num_inputs) * sizeof(czk_g1_affine);
}

/*
 * srs.lagrange: the circuit's Lagrange form of H and L (groth16.h), where its file
 * (czk_params_lagrange_file_name of the vk) is in a directory of the key search path (keys.h,
 * from srs.param_cache): read, checked against the vk and the shape, attached to the
 * parameters. A file that does not fit or is damaged is logged and left out (the parameters
 * alone prove the same proofs). Returns the form's bytes in host memory (0: none attached).
 */
static uint64_t attach_lagrange(czk_engine *e, const char *id, czk_params *params,
                                const czk_shape *shape) {
    char name[CZK_LAGRANGE_NAME_MAX], path[CZK_KEY_DIR_MAX + CZK_LAGRANGE_NAME_MAX + 2];
    czk_params_lagrange_file_name(name, &params->vk);
    czk_key_path kp;
    czk_err err;
    if (czk_key_path_get(&kp, e->cfg.param_cache, &err)) return 0;
    for (unsigned d = 0; d < kp.n; d++) {
        snprintf(path, sizeof path, "%s/%s", kp.dir[d], name);
        if (access(path, R_OK)) continue;
        uint64_t t0 = czk_engine_ms(e);
        czk_params_lagrange *lf = NULL;
        if (czk_params_lagrange_read(&lf, path, &params->vk, shape, e->gpu_pool, &err)) {
            czk_engine_log(e, 1, "srs %s: Lagrange form %s left out: %s", id, path, err.msg);
            continue;
        }
        params->lagrange = lf;
        czk_engine_log(e, 2,
                       "srs %s: Lagrange form %s attached in %llu ms (h %llu, l %u): SpMV "
                       "without C, H in four transforms",
                       id, path, (unsigned long long)(czk_engine_ms(e) - t0),
                       (unsigned long long)1 << lf->log_n, lf->num_aux);
        return lagrange_bytes(lf);
    }
    return 0;
}

/* The engine's make_lagrange hook where no file was attached; the form's bytes (0: none). */
static uint64_t make_lagrange(czk_engine *e, const char *id, czk_params *params,
                              const czk_shape *shape) {
    uint64_t t0 = czk_engine_ms(e);
    czk_params_lagrange *lf = NULL;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = e->opts.make_lagrange(e->opts.lagrange_ctx, params, shape, &lf, &err);
    if (!st && lf) st = czk_params_lagrange_check(lf, shape, &err);
    if (st || !lf) {
        if (st) czk_engine_log(e, 1, "srs %s: Lagrange form not made: %s", id, err.msg);
        czk_params_lagrange_free(lf);
        return 0;
    }
    params->lagrange = lf;
    czk_engine_log(e, 2,
                   "srs %s: Lagrange form made in %llu ms (make_lagrange; h %llu, l %u): SpMV "
                   "without C, H in four transforms",
                   id, (unsigned long long)(czk_engine_ms(e) - t0),
                   (unsigned long long)1 << lf->log_n, lf->num_aux);
    return lagrange_bytes(lf);
}

/*
 * Frees the shape's CSR arrays (row pointers, columns, coefficient indices)
 * once every device holds its own copy: the host then reads only counts,
 * bitmaps and the coefficient table. Returns the bytes freed.
 */
static uint64_t drop_shape_matrices(czk_shape *shape) {
    uint64_t n = 0;
    for (int i = 0; i < 3; i++) {
        czk_csr *m = &shape->m[i];
        n += (shape->num_constraints + 1) * sizeof(uint64_t) + m->nnz * 2 * sizeof(uint32_t);
        free(m->row_ptr);
        free(m->col);
        free(m->coeff);
        m->row_ptr = NULL;
        m->col = m->coeff = NULL;
    }
    return n;
}

static void advise_huge(void *p, size_t len) {
#ifdef MADV_HUGEPAGE
    if (!p || len < (2u << 20)) return;
    uintptr_t a = (uintptr_t)p, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t b = (a + pg - 1) & ~(pg - 1), end = (a + len) & ~(pg - 1);
    if (end > b) (void)madvise((void *)b, end - b, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

srs_entry *czk_srs_get(czk_engine *e, int kind, const char *id, int prio) {
    srs_entry *s;
    for (s = e->srs; s; s = s->next)
        if (!strcmp(s->id, id)) break;
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        snprintf(s->id, sizeof s->id, "%s", id);
        s->kind = kind;
        s->idle_since = czk_engine_ms(e);
        s->next = e->srs;
        e->srs = s;
        s->state = SRS_FAILED; /* becomes LOADING below */
    }
    const czk_priority kp = czk_engine_kind(e, kind)->default_priority;
    int base = kp ? (int)kp : (int)CZK_PRIORITY_NORMAL;
    if (s->keep_prio < base) s->keep_prio = base;
    if (prio > s->keep_prio) s->keep_prio = prio;
    if (s->state == SRS_FAILED) {
        s->state = SRS_LOADING;
        s->queued_load = true;
        s->load_prio = prio;
        czk_err_clear(&s->load_err);
        pthread_cond_broadcast(&e->srs_cv);
    } else if (s->state == SRS_LOADING && prio > s->load_prio) {
        s->load_prio = prio;
    }
    return s;
}

void czk_srs_ref(czk_engine *e, srs_entry *s) {
    (void)e;
    s->refs++;
}

void czk_srs_unref(czk_engine *e, srs_entry *s) {
    if (s->refs && --s->refs == 0) {
        s->idle_since = czk_engine_ms(e);
        pthread_cond_broadcast(&e->srs_cv);
        pthread_cond_broadcast(&e->synth_cv);
    }
}

/* Drops an entry's data and budget charge; the entry itself is unlinked and freed. Its
 * witness buffers are all idle (no job holds the entry). */
void czk_srs_free_entry(czk_engine *e, srs_entry *s) {
    for (srs_entry **pp = &e->srs; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    czk_wpool_trim(e, s, NULL, UINT64_MAX);
    if (s->params)
        for (int d = 0; d < e->num_devices; d++) {
            czk_backend *b = &e->devices[d].backend;
            /* also after a load that only pinned host memory (device_bytes 0) */
            if (b->ops && b->ops->unload) b->ops->unload(b->self, s->params);
        }
    e->budget.srs -= s->reserved < e->budget.srs ? s->reserved : e->budget.srs;
    e->budget.shapes -= s->shape_bytes < e->budget.shapes ? s->shape_bytes : e->budget.shapes;
    czk_params_free(s->params);
    czk_shape_free(s->shape);
    if (s->pvk) {
        czk_pvk_free(s->pvk);
        free(s->pvk);
    }
    free(s);
}

/* The entry to evict next: unheld and ready (idle long enough unless force), of the lowest
 * keep_prio, then least recently used. */
static srs_entry *evict_candidate(czk_engine *e, bool force, uint64_t now) {
    srs_entry *best = NULL;
    for (srs_entry *s = e->srs; s; s = s->next) {
        if (s->refs || s->state != SRS_READY) continue;
        if (!force && now - s->idle_since < e->cfg.eviction_min_idle_ms) continue;
        if (!best || s->keep_prio < best->keep_prio ||
            (s->keep_prio == best->keep_prio && s->idle_since < best->idle_since))
            best = s;
    }
    return best;
}

bool czk_srs_make_room(czk_engine *e, uint64_t need, bool force) {
    uint64_t now = czk_engine_ms(e);
    if (czk_budget_free(&e->budget) < need) {
        uint64_t freed = czk_wpool_trim(e, NULL, NULL, need);
        if (freed)
            czk_engine_log(e, 2, "memory: freed %llu bytes of idle witness buffers for %llu bytes",
                           (unsigned long long)freed, (unsigned long long)need);
    }
    while (czk_budget_free(&e->budget) < need) {
        srs_entry *s = evict_candidate(e, force, now);
        if (!s) return false;
        uint64_t bytes = s->reserved + s->shape_bytes;
        czk_engine_log(e, 2,
                       "srs %s: evicted (idle %llu ms, %llu bytes, served %s) to make room for "
                       "%llu bytes",
                       s->id, (unsigned long long)(now - s->idle_since), (unsigned long long)bytes,
                       czk_priority_name((czk_priority)s->keep_prio), (unsigned long long)need);
        czk_timeline_emit(e, CZK_EV_SRS_EVICT, "-", -1, -1, "circuit=%s bytes=%llu", s->id,
                          (unsigned long long)bytes);
        czk_srs_free_entry(e, s);
    }
    return true;
}

/* True when waiting can make room: working memory will return, or an unheld entry will
 * become evictable. */
static bool room_may_come(czk_engine *e, srs_entry *self) {
    if (e->budget.working) return true;
    for (srs_entry *s = e->srs; s; s = s->next)
        if (s->n_bufs > s->n_idle_bufs) return true; /* held buffers come back idle */
    for (srs_entry *s = e->srs; s; s = s->next)
        if (s != self && s->state == SRS_READY && !s->refs) return true;
    for (srs_entry *s = e->srs; s; s = s->next)
        if (s != self && s->refs) return true; /* its jobs will end */
    return false;
}

static void fail_waiting_jobs(czk_engine *e, srs_entry *s) {
    for (czk_job *j = e->jobs; j; j = j->next)
        if (j->srs == s && (j->state == CZK_JOB_QUEUED || j->state == CZK_JOB_RUNNING))
            czk_job_fail(e, j, s->load_err.code ? s->load_err.code : CZK_ERR_INTERNAL,
                         "job %s: SRS %s: %s", j->id, s->id, s->load_err.msg);
}

/*
 * Progress of a parameter read (czk_params_progress_fn), on the loader
 * thread without mu: the entry shows the last report; a log line comes when
 * the pass has advanced 10 points since the last line and 5 s have passed
 * since it (or since the load began), so a load of a few seconds logs
 * nothing and a long one a line per 10 points or per 5 s, whichever is
 * slower. The subgroup pass, when it runs, counts from 0 again; the
 * reader's notice before it (CZK_PARAMS_NOTICE: why, and how long) is
 * logged as it comes.
 */
typedef struct load_progress {
    czk_engine *e;
    srs_entry *s;   /* LOADING: neither evicted nor freed while it loads */
    uint64_t t_log; /* ms of the last line (the load's start before the first) */
    int pct_log;    /* percentage in the last line, -1 for none in this pass */
    bool subgroup;  /* the pass of the last report is the subgroup pass */
} load_progress;

#define LOAD_LOG_POINTS 10
#define LOAD_LOG_MS 5000

static void on_load_progress(void *ctx, const char *stage, uint64_t done, uint64_t total) {
    load_progress *lp = ctx;
    czk_engine *e = lp->e;
    if (!strncmp(stage, CZK_PARAMS_NOTICE, sizeof CZK_PARAMS_NOTICE - 1)) {
        /* the reader says why it checks every point and how long that takes: once, as it is */
        czk_engine_log(e, 2, "srs %s: %s", lp->s->id, stage);
        return;
    }
    int pct = total ? (int)(done * 100 / total) : 100;
    bool sub = !strncmp(stage, "subgroup ", 9);
    if (sub != lp->subgroup) {
        lp->subgroup = sub;
        lp->pct_log = -1;
    }
    pthread_mutex_lock(&e->mu);
    snprintf(lp->s->load_stage, sizeof lp->s->load_stage, "%s", stage);
    lp->s->load_percent = (uint32_t)pct;
    pthread_mutex_unlock(&e->mu);
    uint64_t now = czk_engine_ms(e);
    int from = lp->pct_log < 0 ? 0 : lp->pct_log;
    if (pct - from < LOAD_LOG_POINTS || now - lp->t_log < LOAD_LOG_MS) return;
    lp->t_log = now;
    lp->pct_log = pct;
    double gib = 1024.0 * 1024.0 * 1024.0;
    czk_engine_log(e, 2, "srs %s: loading %s %d %% (%.1f of %.1f GiB)", lp->s->id, stage, pct,
                   (double)done / gib, (double)total / gib);
}

/* Bytes other circuits queued to load will reserve (mu held): a prefill leaves them free. */
static uint64_t queued_estimates(czk_engine *e, const srs_entry *self) {
    uint64_t n = 0;
    for (srs_entry *o = e->srs; o; o = o->next)
        if (o != self && o->state == SRS_LOADING && o->queued_load) {
            const czk_proof_kind *k = czk_engine_kind(e, o->kind);
            if (k->circuit_bytes) n += k->circuit_bytes(k->ctx, o->id, e->cfg.param_cache);
        }
    return n;
}

/* Loads one entry: budget, kind loader, checks, device upload, witness buffers. mu held on
 * entry and exit. */
static void load_one(czk_engine *e, srs_entry *s) {
    const czk_proof_kind *k = czk_engine_kind(e, s->kind);
    uint64_t est = 0;
    if (k->circuit_bytes) est = k->circuit_bytes(k->ctx, s->id, e->cfg.param_cache);
    uint64_t t_wait = czk_engine_ms(e);
    while (!e->stopping && czk_budget_free(&e->budget) < est) {
        if (czk_srs_make_room(e, est, false)) break;
        if (!room_may_come(e, s)) {
            if (czk_srs_make_room(e, est, true)) break;
            czk_errf(&s->load_err, CZK_ERR_NOMEM,
                     "needs %llu bytes, the memory budget has %llu free of %llu (%s) and nothing "
                     "left to evict",
                     (unsigned long long)est, (unsigned long long)czk_budget_free(&e->budget),
                     (unsigned long long)e->budget.total, e->budget_source);
            s->state = SRS_FAILED;
            s->queued_load = false;
            s->waiting_budget = false;
            czk_engine_log(e, 0, "srs %s: load refused: %s", s->id, s->load_err.msg);
            fail_waiting_jobs(e, s);
            pthread_cond_broadcast(&e->srs_cv);
            return;
        }
        s->waiting_budget = true;
        czk_timed_wait(&e->srs_cv, &e->mu, 100);
    }
    s->waiting_budget = false;
    if (e->stopping) return;
    s->queued_load = false;
    e->budget.srs += est;
    s->reserved = est;
    s->load_start = czk_engine_ms(e);
    if (s->load_start - t_wait > 0)
        czk_engine_log(e, 3, "srs %s: waited %llu ms for budget", s->id,
                       (unsigned long long)(s->load_start - t_wait));
    czk_timeline_emit(e, CZK_EV_SRS_LOAD_START, "-", -1, -1, "circuit=%s estimate=%llu", s->id,
                      (unsigned long long)est);
    s->load_stage[0] = 0;
    s->load_percent = 0;
    load_progress lp = {e, s, s->load_start, -1, false};
    pthread_mutex_unlock(&e->mu);

    czk_err err;
    czk_err_clear(&err);
    czk_params *params = NULL;
    czk_shape *shape = NULL;
    czk_pvk *pvk = NULL;
    uint64_t device_bytes = 0, device_mask = 0;
    uint64_t shape_dropped = 0;
    czk_status st = k->load_circuit(k->ctx, s->id, e->cfg.param_cache, e->gpu_pool, &e->stop_flag,
                                    on_load_progress, &lp, &params, &shape, &err);
    if (!st) st = czk_params_check_shape(params, shape, &err);
    uint64_t form_bytes = !st && e->cfg.lagrange ? attach_lagrange(e, s->id, params, shape) : 0;
    if (!st && e->cfg.lagrange && !form_bytes && e->opts.make_lagrange)
        form_bytes = make_lagrange(e, s->id, params, shape);
    if (form_bytes) { /* charged now, beside the estimate; corrected with it after the upload */
        pthread_mutex_lock(&e->mu);
        e->budget.srs += form_bytes;
        s->reserved += form_bytes;
        pthread_mutex_unlock(&e->mu);
    }
    if (!st) {
        pvk = calloc(1, sizeof *pvk);
        st = pvk ? czk_pvk_prepare(pvk, &params->vk, &err)
                 : czk_errf(&err, CZK_ERR_NOMEM, "verifying key");
    }
    if (!st) {
        advise_huge(params->h, (size_t)params->h_len * sizeof(czk_g1_affine));
        advise_huge(params->l, (size_t)params->l_len * sizeof(czk_g1_affine));
        advise_huge(params->a, (size_t)params->a_len * sizeof(czk_g1_affine));
        advise_huge(params->b_g1, (size_t)params->b_g1_len * sizeof(czk_g1_affine));
        advise_huge(params->b_g2, (size_t)params->b_g2_len * sizeof(czk_g2_affine));
        unsigned droppable = ~0u;
        bool all = e->num_devices > 0;
        /* each device its own copy, one after another (a device that cannot hold them
         * decodes the shared host vectors in place, which must not happen under another
         * device's upload of them); a failed device takes nothing */
        pthread_mutex_lock(&e->mu);
        bool failed[CZK_ENGINE_MAX_DEVICES];
        for (int d = 0; d < e->num_devices; d++)
            failed[d] = e->devices[d].failed;
        pthread_mutex_unlock(&e->mu);
        for (int d = 0; d < e->num_devices; d++) {
            czk_backend *b = &e->devices[d].backend;
            unsigned drop = 0;
            uint64_t dev = 0;
            czk_err lerr;
            czk_err_clear(&lerr);
            if (failed[d]) continue;
            if (!b->ops->load || b->ops->load(b->self, params, shape, &drop, &dev, &lerr)) {
                if (b->ops->load && lerr.code != CZK_ERR_NOMEM)
                    czk_engine_log(e, 1, "srs %s: device %d keeps no copy: %s", s->id, d, lerr.msg);
                all = false;
                continue;
            }
            droppable &= drop;
            device_bytes += dev; /* the parameters, or only the shape of streamed ones */
            if (dev && drop) device_mask |= 1ull << d;
        }
        if (all && device_bytes) {
            /* every device holds them (or the shape of streamed ones): free the host vectors
             * the device part no longer reads, and the shape's matrices where every device
             * holds the shape */
            czk_params_drop_host(params, droppable, NULL);
            bool shape_everywhere = true;
            const czk_backend_provider *g = e->opts.gpu;
            for (int d = 0; d < e->num_devices && shape_everywhere; d++)
                shape_everywhere = failed[d] || (g && g->shape_resident &&
                                                 g->shape_resident(&e->devices[d].backend, params));
            if (shape_everywhere) shape_dropped = drop_shape_matrices(shape);
        }
    }

    pthread_mutex_lock(&e->mu);
    s->load_ms = czk_engine_ms(e) - s->load_start;
    s->load_stage[0] = 0;
    s->load_percent = 0;
    if (st) {
        e->budget.srs -= s->reserved;
        s->reserved = 0;
        czk_params_free(params);
        czk_shape_free(shape);
        if (pvk) czk_pvk_free(pvk);
        free(pvk);
        s->load_err = err;
        s->state = SRS_FAILED;
        czk_engine_log(e, 0, "srs %s: load failed: %s", s->id, err.msg);
        czk_timeline_emit(e, CZK_EV_SRS_LOAD_END, "-", -1, -1, "circuit=%s load_ms=%llu error=%s",
                          s->id, (unsigned long long)s->load_ms, czk_status_name(st));
        fail_waiting_jobs(e, s);
    } else {
        uint64_t host = params_host_bytes(params), sb = czk_shape_bytes(shape) - shape_dropped;
        s->shape_host_dropped = shape_dropped != 0;
        s->lagrange = params->lagrange != NULL;
        e->budget.srs = e->budget.srs - s->reserved + host;
        s->reserved = host;
        e->budget.shapes += sb;
        s->shape_bytes = sb;
        s->device_bytes = device_bytes;
        s->device_mask = device_mask;
        s->params = params;
        s->shape = shape;
        s->pvk = pvk;
        if (czk_budget_used(&e->budget) > e->budget.total)
            czk_engine_log(e, 1,
                           "srs %s: loaded %llu + %llu bytes, above its estimate %llu: the budget "
                           "is over by %llu bytes until work ends",
                           s->id, (unsigned long long)host, (unsigned long long)sb,
                           (unsigned long long)est,
                           (unsigned long long)(czk_budget_used(&e->budget) - e->budget.total));
        /* the witness buffers the pipeline will hold, before any partition runs */
        if (!e->stopping) czk_wpool_prefill(e, s, queued_estimates(e, s));
        s->load_ms = czk_engine_ms(e) - s->load_start;
        s->state = SRS_READY;
        if (!s->refs) s->idle_since = czk_engine_ms(e);
        czk_engine_log(e, 2,
                       "srs %s: loaded in %llu ms (params %llu bytes host, %llu on devices "
                       "(mask 0x%llx); "
                       "shape %llu bytes host%s, %llu constraints; %u witness buffers in %llu "
                       "ms)",
                       s->id, (unsigned long long)s->load_ms, (unsigned long long)host,
                       (unsigned long long)device_bytes, (unsigned long long)device_mask,
                       (unsigned long long)sb,
                       shape_dropped ? ", its matrices only on the devices" : "",
                       (unsigned long long)shape->num_constraints, s->prefilled,
                       (unsigned long long)s->prefill_ms);
        czk_timeline_emit(e, CZK_EV_SRS_LOAD_END, "-", -1, -1,
                          "circuit=%s load_ms=%llu bytes=%llu shape_bytes=%llu device_bytes=%llu "
                          "witness_buffers=%u witness_buffers_ms=%llu",
                          s->id, (unsigned long long)s->load_ms, (unsigned long long)host,
                          (unsigned long long)sb, (unsigned long long)device_bytes, s->prefilled,
                          (unsigned long long)s->prefill_ms);
    }
    pthread_cond_broadcast(&e->srs_cv);
    pthread_cond_broadcast(&e->synth_cv);
}

void *czk_srs_loader_main(void *arg) {
    czk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        srs_entry *best = NULL;
        for (srs_entry *s = e->srs; s; s = s->next)
            if (s->queued_load && (!best || s->load_prio > best->load_prio)) best = s;
        if (!best) {
            pthread_cond_wait(&e->srs_cv, &e->mu);
            continue;
        }
        load_one(e, best);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- public: preload, evict ---- */

czk_status czk_engine_preload(czk_engine *e, const char *circuit_id, bool wait,
                              bool *already_loaded, uint64_t *load_ms, czk_err *err) {
    int kind = -1;
    pthread_mutex_lock(&e->mu);
    for (int i = 0; i < e->num_kinds && kind < 0; i++)
        if (e->kinds[i].owns_circuit && e->kinds[i].owns_circuit(e->kinds[i].ctx, circuit_id))
            kind = i;
    pthread_mutex_unlock(&e->mu);
    if (kind < 0 || strlen(circuit_id) >= CZK_CIRCUIT_ID_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "preload: unknown circuit id '%s'", circuit_id);
    czk_status st = CZK_OK;
    pthread_mutex_lock(&e->mu);
    srs_entry *s = NULL;
    for (s = e->srs; s; s = s->next)
        if (!strcmp(s->id, circuit_id)) break;
    bool ready = s && s->state == SRS_READY;
    if (already_loaded) *already_loaded = ready;
    if (!ready) {
        czk_priority dp = e->kinds[kind].default_priority; /* the kind's jobs' priority */
        s = czk_srs_get(e, kind, circuit_id, dp ? (int)dp : (int)CZK_PRIORITY_NORMAL);
        if (!s) st = czk_errf(err, CZK_ERR_NOMEM, "preload %s: out of memory", circuit_id);
        /* the entry stays pinned by this call while it waits */
        if (s && wait) {
            s->refs++;
            while (s->state == SRS_LOADING && !e->stopping)
                pthread_cond_wait(&e->srs_cv, &e->mu);
            if (s->state == SRS_FAILED) {
                st = s->load_err.code ? s->load_err.code : CZK_ERR_INTERNAL;
                czk_errf(err, st, "preload %s: %s", circuit_id, s->load_err.msg);
            } else if (s->state == SRS_LOADING) {
                st = czk_errf(err, CZK_ERR_CANCELLED, "preload %s: engine shutting down",
                              circuit_id);
            }
            czk_srs_unref(e, s);
        }
    }
    if (load_ms) *load_ms = s ? s->load_ms : 0;
    pthread_mutex_unlock(&e->mu);
    return st;
}

czk_status czk_engine_evict(czk_engine *e, const char *circuit_id, bool *was_loaded,
                            uint64_t *freed_bytes, czk_err *err) {
    czk_status st = CZK_OK;
    if (was_loaded) *was_loaded = false;
    if (freed_bytes) *freed_bytes = 0;
    pthread_mutex_lock(&e->mu);
    srs_entry *s;
    for (s = e->srs; s; s = s->next)
        if (!strcmp(s->id, circuit_id)) break;
    if (s && (s->refs || s->state == SRS_LOADING)) {
        st = czk_errf(err, CZK_ERR_MISMATCH, "evict %s: %s", circuit_id,
                      s->refs ? "held by running jobs" : "loading");
        if (was_loaded) *was_loaded = s->state == SRS_READY;
    } else if (s) {
        uint64_t bytes = s->reserved + s->shape_bytes;
        if (was_loaded) *was_loaded = s->state == SRS_READY;
        if (freed_bytes) *freed_bytes = bytes;
        czk_timeline_emit(e, CZK_EV_SRS_EVICT, "-", -1, -1, "circuit=%s bytes=%llu", s->id,
                          (unsigned long long)bytes);
        czk_engine_log(e, 2, "srs %s: evicted on request (%llu bytes)", s->id,
                       (unsigned long long)bytes);
        czk_srs_free_entry(e, s);
        pthread_cond_broadcast(&e->synth_cv);
        pthread_cond_broadcast(&e->srs_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return st;
}
