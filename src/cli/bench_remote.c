/*
 * `czk bench --addr`: the remote runner, a czk (or cuzk) daemon reached over
 * gRPC with the client of include/czk/rpc.h. Each proof is one Prove call
 * (submit and wait), as cuzk-bench's batch mode does. Per proof the queue,
 * synthesis and GPU times are the daemon's (AwaitProofResponse); the
 * daemon's TIMELINE events and its memory are not on the wire: busy %, idle
 * gaps and per-partition times come from the daemon's logging.timeline_file
 * when the bench can read it (--timeline-file: the lines appended to it
 * during the run, every job's, since they share the devices); otherwise,
 * and for peak RSS, the summary says they are unknown. The configuration
 * printed is what GetStatus tells.
 * Without the gRPC layer (-DCZK_RPC=OFF) --addr is refused, saying so.
 */
#include "cli/cli.h"
#include "czk/bench.h"

czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, const char *preload,
                            const char *timeline_file, czk_err *err);

#ifdef CZK_HAVE_RPC
#include "czk/rpc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct remote {
    czk_rpc_client *c;
    char addr[256];
    char *tl_path;       /* the daemon's timeline file, or NULL */
    long long tl_offset; /* its size when the run began */
} remote;

static void remote_begin(void *self) {
    remote *r = self;
    struct stat st;
    r->tl_offset = r->tl_path && !stat(r->tl_path, &st) ? (long long)st.st_size : 0;
}

static czk_status remote_timeline(void *self, czk_tl *tl, czk_err *err) {
    remote *r = self;
    if (!r->tl_path) return czk_errf(err, CZK_ERR_UNSUPPORTED, "no --timeline-file");
    FILE *f = fopen(r->tl_path, "r");
    if (!f) return czk_errf(err, CZK_ERR_IO, "--timeline-file %s: %s", r->tl_path, strerror(errno));
    czk_status st = CZK_OK;
    if (fseek(f, (long)r->tl_offset, SEEK_SET))
        st = czk_errf(err, CZK_ERR_IO, "--timeline-file %s: seek", r->tl_path);
    char line[4096];
    while (!st && fgets(line, sizeof line, f))
        st = czk_tl_add_line(tl, line, err);
    fclose(f);
    return st;
}

static czk_status remote_prove(void *self, const czk_proof_request *req, czk_job_result *out,
                               czk_err *err) {
    remote *r = self;
    memset(out, 0, sizeof *out);
    return czk_rpc_prove(r->c, req, -1, out, NULL, err);
}

static void remote_describe(void *self, FILE *f) {
    remote *r = self;
    fprintf(f, "  runner = remote %s (the daemon's configuration is its own; GetStatus says:)\n",
            r->addr);
    czk_rpc_status *s = NULL;
    czk_err err;
    if (czk_rpc_get_status(r->c, &s, 10000, NULL, &err)) {
        fprintf(f, "  status = unavailable (%s)\n", err.msg);
        return;
    }
    fprintf(f, "  gpus = %zu\n", s->num_gpus);
    for (size_t i = 0; i < s->num_gpus; i++)
        fprintf(f, "  gpu %u = %s\n", s->gpus[i].ordinal, s->gpus[i].name);
    for (size_t i = 0; i < s->num_srs; i++)
        fprintf(f, "  srs %s = %.2f GiB\n", s->loaded_srs[i].circuit_id,
                (double)s->loaded_srs[i].size_bytes / (double)(1ull << 30));
    fprintf(f, "  proofs completed / failed since start = %llu / %llu\n",
            (unsigned long long)s->total_proofs_completed,
            (unsigned long long)s->total_proofs_failed);
    fprintf(f, "  uptime = %llu s\n", (unsigned long long)s->uptime_seconds);
    czk_rpc_status_free(s);
}

static void remote_destroy(void *self) {
    remote *r = self;
    if (!r) return;
    czk_rpc_client_close(r->c);
    free(r->tl_path);
    free(r);
}

static const czk_bench_runner_ops REMOTE_OPS = {
    "remote", remote_prove, remote_begin, remote_timeline, NULL, remote_describe, remote_destroy,
};

static const czk_bench_runner_ops REMOTE_OPS_NO_TL = {
    "remote", remote_prove, NULL, NULL, NULL, remote_describe, remote_destroy,
};

czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, const char *preload,
                            const char *timeline_file, czk_err *err) {
    out->ops = NULL;
    out->self = NULL;
    remote *r = calloc(1, sizeof *r);
    if (!r) return czk_errf(err, CZK_ERR_NOMEM, "bench: remote runner");
    if (timeline_file) {
        FILE *t = fopen(timeline_file, "r");
        if (!t) {
            czk_status st =
                czk_errf(err, CZK_ERR_IO, "--timeline-file %s: %s", timeline_file, strerror(errno));
            free(r);
            return st;
        }
        fclose(t);
        r->tl_path = strdup(timeline_file);
    }
    snprintf(r->addr, sizeof r->addr, "%s", addr);
    czk_status st = czk_rpc_client_connect(&r->c, addr, 0, err);
    if (st) {
        free(r);
        return st;
    }
    /* fail early when nobody answers there */
    czk_rpc_status *s = NULL;
    st = czk_rpc_get_status(r->c, &s, 10000, NULL, err);
    czk_rpc_status_free(s);
    if (st) {
        remote_destroy(r);
        return st;
    }
    if (preload) {
        bool already = false;
        uint64_t ms = 0;
        czk_err perr;
        if (czk_rpc_preload(r->c, preload, &already, &ms, -1, NULL, &perr))
            fprintf(stderr, "czk bench: warning: PreloadSRS %s: %s (the proofs will say more)\n",
                    preload, perr.msg);
        else
            fprintf(stderr, "czk bench: %s %s (before the clock starts)\n", preload,
                    already ? "was loaded" : "loaded");
    }
    out->ops = r->tl_path ? &REMOTE_OPS : &REMOTE_OPS_NO_TL;
    out->self = r;
    return CZK_OK;
}

#else

czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, const char *preload,
                            const char *timeline_file, czk_err *err) {
    (void)addr;
    (void)preload;
    (void)timeline_file;
    out->ops = NULL;
    out->self = NULL;
    return czk_errf(err, CZK_ERR_UNSUPPORTED,
                    "the gRPC client is not available in this build (configured with "
                    "-DCZK_RPC=OFF; use --in-process)");
}

#endif
