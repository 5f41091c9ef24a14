/*
 * czk — the HTTP status endpoint of the daemon (daemon.status_listen;
 * cuzk-engine.md §3: a raw HTTP `GET /status` with memory, per-partition
 * pipeline states, workers, SRS and counters), on libmicrohttpd:
 *
 *   GET /status   200, application/json: czk_status_page_json of a fresh
 *                 snapshot (the last 100 timeline lines);
 *   GET /metrics  200, text/plain; version=0.0.4: czk_metrics_format, the
 *                 same text as the gRPC GetMetrics (czk_metrics_text);
 *   HEAD          as GET, without the body;
 *   other paths   404; other methods 405 (Allow: GET, HEAD).
 *
 * Requests are answered on the endpoint's own thread; each takes the
 * engine's mutex only while the snapshot is copied. No authentication:
 * bind it to a loopback or otherwise trusted address.
 *
 * The renderings of a snapshot (czk_metrics_*, czk_status_page_json) are
 * the server layer's and built also without libmicrohttpd: src/rpc uses the
 * Prometheus text for GetMetrics.
 */
#ifndef CZK_HTTPSTATUS_H
#define CZK_HTTPSTATUS_H

#include "czk/common.h"
#include "czk/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_httpstatus czk_httpstatus;

/* Whether this build has the endpoint (cmake -DCZK_HTTP=ON, the default). Never fails. */
bool czk_httpstatus_available(void);

/*
 * Starts serving engine e on addr, "host:port": an IPv4 address, a
 * bracketed IPv6 address ("[::1]:9821") or a host name that resolves
 * (the first address it resolves to); port 0 picks a free port
 * (czk_httpstatus_port tells which). The engine must outlive the endpoint.
 * Out: *out  the endpoint (czk_httpstatus_stop).
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG "status_listen \"ADDR\": ..." (addr
 *   not "host:port", port not 0..65535, too long, host does not resolve);
 *   CZK_ERR_IO (socket, bind, e.g. in use, or libmicrohttpd did not start);
 *   CZK_ERR_UNSUPPORTED (built without CZK_HTTP); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_httpstatus_start(czk_engine *e, const char *addr, czk_httpstatus **out,
                                              czk_err *err) CZK_NONNULL(1, 2, 3);

/* The port it listens on (the one picked for port 0); 0 in a build without CZK_HTTP. */
uint16_t czk_httpstatus_port(const czk_httpstatus *h) CZK_NONNULL(1);

/* Stops serving (waits for requests being answered) and frees. NULL is fine. */
void czk_httpstatus_stop(czk_httpstatus *h);

/* ---- the server's table of the file, [daemon] (src/httpstatus/daemon_config.c) ---- */

typedef struct czk_daemon_config {
    char listen[256];        /* daemon.listen: gRPC address(es), comma-separated
                                ("unix:///run/curio/cuzk.sock") */
    char status_listen[256]; /* daemon.status_listen: HTTP GET /status address ("" = off) */
    /* czk's own keys (czk daemon) */
    bool shutdown_drain;        /* daemon.shutdown_drain: on SIGINT/SIGTERM let proofs in
                                   flight finish (true, as cuzk) or cancel them (false) */
    uint64_t shutdown_grace_ms; /* daemon.shutdown_grace: longest drain; then what is left
                                   is cancelled (0 = no limit) */
    uint64_t max_message_bytes; /* daemon.max_message_size: gRPC receive/send limit
                                   (257 MiB; Curio sends up to 256 MiB) */

    /* daemon.shutdown_cancel_grace: once jobs are cancelled, how long their work may take to
     * stop (each part stops at its next checkpoint) before the daemon exits anyway, naming
     * what it abandoned (10 s; 0 = no limit) */
    uint64_t shutdown_cancel_grace_ms;
} czk_daemon_config;

/* Fills c with the defaults listed above. */
void czk_daemon_config_default(czk_daemon_config *c) CZK_NONNULL(1);

/*
 * The [daemon] table for czk_config_parse / czk_config_load
 * (include/czk/engine.h), reading into c.
 * Returns: the table description; it points at c, which must outlive it.
 */
czk_config_table czk_daemon_config_table(czk_daemon_config *c) CZK_NONNULL(1);

/* ---- renderings of the engine status snapshot (src/httpstatus/metrics.c, status_json.c) ---- */

/*
 * Prometheus text exposition format 0.0.4 (every family with # HELP and
 * # TYPE, its samples together). cuzk's names and meaning (cuzk-engine.md
 * §2) so existing dashboards keep working:
 *   cuzk_proofs_completed_total, cuzk_proofs_failed_total (counters),
 *   cuzk_uptime_seconds, cuzk_queue_depth (jobs queued + running),
 *   cuzk_proofs_completed{proof_kind}, cuzk_proofs_failed{proof_kind}
 *   (always cuzk's four labels porep_c2, snap_update, window_post,
 *   winning_post, 0 where no registered kind has the label, then the
 *   metric label of every other registered kind, e.g. test),
 *   cuzk_proof_duration_seconds_{count,sum} (a summary of the last 1000),
 *   cuzk_running_jobs, cuzk_gpu_workers.
 * proof_kind is the kind's descriptor's metric_label.
 * czk's own (czk_*): czk_proofs_total{proof_kind,status=completed|failed|
 * cancelled}, czk_proof_duration_seconds histogram{proof_kind} (since start,
 * buckets czk_duration_bucket_le), czk_queue_partitions{proof_kind,stage}
 * and czk_queue_jobs{proof_kind,state}, czk_partitions{stage},
 * czk_gpu_busy_ratio{device} (device lock held / uptime),
 * czk_gpu_busy_seconds_total{device}, czk_gpu_workers_busy{device},
 * czk_gpu_vram_bytes{device,kind=total|free} (where reported),
 * czk_gpu_partitions_proved_total{device},
 * czk_memory_budget_bytes{part=total|used|srs|shapes|working|witness_buffers},
 * czk_memory_budget_info{source} (where the total came from),
 * czk_process_resident_bytes, czk_memory_total_bytes,
 * czk_srs_bytes{circuit_id,tier,part=host|device|shape}, czk_srs_refs{circuit_id},
 * czk_workers{role}, czk_workers_busy{role}, czk_verify_failures_total,
 * czk_partitions_synthesized_total, czk_partitions_proved_total,
 * czk_results_pruned_total, czk_results_stored.
 * Label values are escaped (\\, \", \n). *out malloc'ed, NUL-terminated.
 */
CZK_NODISCARD czk_status czk_metrics_text(czk_engine *e, char **out, czk_err *err)
    CZK_NONNULL(1, 2);

/* The same text from a snapshot. */
CZK_NODISCARD czk_status czk_metrics_format(const czk_engine_status *s, char **out, czk_err *err)
    CZK_NONNULL(1, 2);

/*
 * The snapshot as one JSON object (yajl's generator; the layout of
 * `GET /status`, daemon.status_listen): uptime_ms, memory{...}, pipeline{...},
 * queues[], partitions[], workers[], gpus[], srs[], jobs{...}, counters{...,
 * by_kind[]}, timeline[] (the last timeline_lines lines). Unknown device
 * memory is null. *out malloc'ed, NUL-terminated; *len its length.
 */
CZK_NODISCARD czk_status czk_status_page_json(const czk_engine_status *s, size_t timeline_lines,
                                              char **out, size_t *len, czk_err *err)
    CZK_NONNULL(1, 3, 4);

#ifdef __cplusplus
}
#endif
#endif
