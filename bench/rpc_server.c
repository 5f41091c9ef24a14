/*
 * bench_rpc_server [big_mb...]: the gRPC layer's cost (src/rpc), server in a
 * child process (an engine on the CPU backend serving the test kind, on a
 * unix socket), czk's C client in this one.
 *
 * Rows:
 *   GetStatus x1 / x8      unary calls per second, 1 and 8 client threads
 *   Prove test-6 x1        whole small proofs (1 partition, 64 constraints) per second
 *   Submit+Await <N> MB    a request of N MB (test kind payload + N MB in
 *                          vanilla_proofs), MB/s of the whole call, and the
 *                          server's peak RSS growth (VmHWM after − VmRSS
 *                          before, /proc/<pid>/status of a fresh server per
 *                          size) divided by the request size
 * Default sizes: 50 and 200 MB.
 */
#define _GNU_SOURCE
#include "czk/engine.h"
#include "czk/kinds.h"
#include "czk/rpc.h"
#include "util/proc.h"
#include "util/time.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t proc_kb(pid_t pid, const char *key) {
    return czk_proc_status_bytes(pid, key) / 1024;
}

static void die(const char *what, const czk_err *err) {
    fprintf(stderr, "bench_rpc_server: %s: %s\n", what, err ? err->msg : "");
    exit(2);
}

/* The child: engine + server until SIGTERM. */
static void serve(const char *addr, const char *dir) {
    czk_engine_opts o;
    czk_engine_opts_default(&o);
    snprintf(o.config.backend, sizeof o.config.backend, "cpu");
    snprintf(o.config.param_cache, sizeof o.config.param_cache, "%s", dir);
    o.config.total_budget = 2ull << 30;
    o.config.partition_workers = 2;
    o.config.threads = 1;
    o.config.gpu_threads = 2;
    o.config.log_level[0] = 0;
    snprintf(o.config.log_level, sizeof o.config.log_level, "error");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    czk_engine *e;
    czk_err err;
    if (czk_engine_create(&e, &o, &err)) die("engine", &err);
    if (czk_kinds_register_test(e, &err)) die("kinds", &err);
    czk_rpc_server_opts so;
    czk_rpc_server_opts_default(&so);
    so.listen[0] = addr;
    so.num_listen = 1;
    czk_rpc_server *s;
    if (czk_rpc_server_start(&s, e, &so, &err)) die("server", &err);
    int sig;
    sigwait(&set, &sig);
    czk_rpc_server_destroy(s);
    czk_engine_destroy(e);
    _exit(0);
}

static pid_t start(const char *addr, const char *dir, czk_rpc_client **c) {
    pid_t pid = fork();
    if (pid < 0) die("fork", NULL);
    if (pid == 0) { /* a fresh process: gRPC state is not fork-safe */
        execl("/proc/self/exe", "bench_rpc_server", "--serve", addr, dir, (char *)NULL);
        _exit(127);
    }
    czk_err err;
    if (czk_rpc_client_connect(c, addr, 0, &err)) die("connect", &err);
    for (int t = 0; t < 400; t++) {
        czk_rpc_status *s;
        if (czk_rpc_get_status(*c, &s, 1000, NULL, NULL) == CZK_OK) {
            czk_rpc_status_free(s);
            return pid;
        }
        usleep(25000);
    }
    die("the server did not come up", NULL);
    return pid;
}

static void stop(pid_t pid, czk_rpc_client *c) {
    czk_rpc_client_close(c);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

typedef struct st_arg {
    czk_rpc_client *c;
    int n;
} st_arg;

static void *status_loop(void *p) {
    st_arg *a = p;
    for (int i = 0; i < a->n; i++) {
        czk_rpc_status *s;
        czk_err err;
        if (czk_rpc_get_status(a->c, &s, 10000, NULL, &err)) die("GetStatus", &err);
        czk_rpc_status_free(s);
    }
    return NULL;
}

static void req_test(czk_proof_request *r, const char *payload) {
    memset(r, 0, sizeof *r);
    r->kind = CZK_KIND_TEST;
    r->vanilla_proof = (const uint8_t *)payload;
    r->vanilla_proof_len = strlen(payload);
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--serve")) serve(argv[2], argv[3]);
    char dir[] = "/tmp/czk-bench-rpc-XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp", NULL);
    char addr[128];
    snprintf(addr, sizeof addr, "unix://%s/s.sock", dir);
    printf("| row | calls | wall s | calls/s | MB/s | server peak RSS growth / request |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");

    czk_rpc_client *c;
    pid_t pid = start(addr, dir, &c);
    for (int threads = 1; threads <= 8; threads *= 8) {
        int per = 2000 / threads;
        pthread_t th[8];
        st_arg a = {c, per};
        double t0 = czk_now();
        for (int i = 0; i < threads; i++)
            pthread_create(&th[i], NULL, status_loop, &a);
        for (int i = 0; i < threads; i++)
            pthread_join(th[i], NULL);
        double dt = czk_now() - t0;
        printf("| GetStatus x%d | %d | %.3f | %.0f | | |\n", threads, per * threads, dt,
               per * threads / dt);
    }
    {
        czk_proof_request r;
        req_test(&r, "seed=1 partitions=1 log=6");
        czk_job_result res;
        czk_err err;
        if (czk_rpc_prove(c, &r, 60000, &res, NULL, &err)) die("Prove", &err); /* keys load */
        czk_job_result_free(&res);
        int n = 50;
        double t0 = czk_now();
        for (int i = 0; i < n; i++) {
            char p[64];
            snprintf(p, sizeof p, "seed=%d partitions=1 log=6", i + 2);
            req_test(&r, p);
            if (czk_rpc_prove(c, &r, 60000, &res, NULL, &err) || res.state != CZK_JOB_COMPLETED)
                die("Prove", &err);
            czk_job_result_free(&res);
        }
        double dt = czk_now() - t0;
        printf("| Prove test-6 x1 | %d | %.3f | %.1f | | |\n", n, dt, n / dt);
    }
    stop(pid, c);

    int nsizes = argc > 1 ? argc - 1 : 2;
    for (int k = 0; k < nsizes; k++) {
        size_t mb = argc > 1 ? strtoull(argv[1 + k], NULL, 10) : (k ? 200 : 50);
        size_t n = mb * 1000 * 1000;
        uint8_t *big = malloc(n);
        if (!big) die("malloc", NULL);
        for (size_t i = 0; i < n; i++)
            big[i] = (uint8_t)(i * 131u + 7u);
        pid = start(addr, dir, &c);
        /* warm: the test keys and one small proof */
        czk_proof_request r;
        req_test(&r, "seed=1 partitions=1 log=6");
        czk_job_result res;
        czk_err err;
        if (czk_rpc_prove(c, &r, 60000, &res, NULL, &err)) die("Prove", &err);
        czk_job_result_free(&res);
        uint64_t rss0 = proc_kb(pid, "VmRSS");
        const uint8_t *vp[1] = {big};
        size_t vl[1] = {n};
        req_test(&r, "seed=9 partitions=1 log=6");
        r.vanilla_proofs = vp;
        r.vanilla_proofs_len = vl;
        r.num_vanilla_proofs = 1;
        double t0 = czk_now();
        char id[CZK_JOB_ID_MAX];
        if (czk_rpc_submit(c, &r, id, NULL, 120000, NULL, &err)) die("SubmitProof", &err);
        double t1 = czk_now();
        if (czk_rpc_await(c, id, 0, 120000, &res, NULL, &err) || res.state != CZK_JOB_COMPLETED)
            die("AwaitProof", &err);
        czk_job_result_free(&res);
        uint64_t hwm = proc_kb(pid, "VmHWM");
        printf("| Submit+Await %zu MB | 1 | %.3f | | %.1f | %.2f |\n", mb, czk_now() - t0,
               (double)n / 1e6 / (t1 - t0), (double)(hwm - rss0) * 1024.0 / (double)n);
        stop(pid, c);
        free(big);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) return 2;
    return 0;
}
