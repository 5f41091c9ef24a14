/*
 * czk — the gRPC service cuzk.v1.ProvingEngine (proto/cuzk/v1/proving.proto,
 * written from cuzk-engine.md §2) and a C client for it.
 *
 * Built only with -DCZK_RPC=ON (the default; needs libgrpc-dev and
 * libprotobuf-c-dev). The server sits on gRPC's core C API (grpc/grpc.h,
 * completion queues and call batches) with protobuf-c messages; it serves a
 * czk_engine (include/czk/engine.h) that the caller owns.
 *
 * Wire semantics (cuzk's, §2, with czk's differences marked *):
 *   SubmitProof  enqueue; job_id = request_id or a fresh one; queue_position =
 *                jobs ahead; assigned_gpu "".
 *                A repeated request_id gets its queued, running or completed
 *                job (*a cancelled or failed job's id submits a new job).
 *   AwaitProof   the result, or wait; timeout_ms > 0 bounds the wait and gives
 *                status TIMEOUT (*cuzk ignores it); 0 = no limit; an unknown
 *                job is NOT_FOUND. *A result stays for scheduler.result_retention
 *                after the job finished, however often it is awaited (a client
 *                that lost the answer awaits again); then NOT_FOUND.
 *   Prove        submit + wait; the call's deadline or a client cancel cancels
 *                the job (*), unless another open Prove call waits for the same
 *                job. A proof that fails answers OK with status FAILED and
 *                error_message.
 *   CancelProof  cancels (*real); was_running = it had not finished; unknown
 *                job: NOT_FOUND. *The job is CANCELLING until its work has
 *                stopped (at the next checkpoint), then CANCELLED.
 *   GetStatus    answers at once, also while keys load; *its field jobs (100)
 *                lists the jobs in flight with their state (CANCELLING too).
 *   GetMetrics   Prometheus text (czk_metrics_text, include/czk/httpstatus.h).
 *   PreloadSRS   loads and waits; unknown circuit: INVALID_ARGUMENT (*cuzk:
 *                INTERNAL); a load failure: INTERNAL.
 *   EvictSRS     drops a circuit's SRS (*real); in use: FAILED_PRECONDITION.
 * Request errors: PROOF_KIND_UNSPECIFIED or an unknown kind, a Prove without
 * `submit`, a malformed message, a PoRep envelope that does not parse or whose
 * SectorSize differs from sector_size, a vanilla proof the kind refuses at
 * submit: INVALID_ARGUMENT with the reason (czk_engine_submit's message);
 * a cuzk.v1 ProofKind the engine does not serve (czk_engine_kind_served;
 * today SnapDeals and PoSt): UNIMPLEMENTED ("proof kind N is not
 * implemented in this engine (it serves ...)"); a request id naming a job
 * of a different request: ALREADY_EXISTS; shutting down: UNAVAILABLE.
 *
 * Payloads (§2): PoRep vanilla_proof = cuzk's envelope JSON {"SectorNum",
 * "Phase1Out" (std base64 of the C1 JSON), "SectorSize"} (`czk client prove`
 * wraps a raw C1 JSON in one). Result = the partitions' 192-byte proofs concatenated in
 * partition order. czk's test kind (ProofKind 100, not in the proto enum)
 * is served where the engine has it registered (`czk daemon` does): its
 * payload is the text of czk_kind_test (include/czk/kinds.h).
 *
 * Threads: every function may be called from any thread; one client may be
 * shared by threads (each call has its own completion queue).
 */
#ifndef CZK_RPC_H
#define CZK_RPC_H

#include "czk/common.h"
#include "czk/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_RPC_MAX_LISTEN 8
/* Receive limit default: Curio sends up to 256 MiB (its cap), plus room for
 * the envelope. */
#define CZK_RPC_DEFAULT_MAX_RECV (257u << 20)

/* ---- server ---- */

typedef struct czk_rpc_server czk_rpc_server;

typedef struct czk_rpc_server_opts {
    /* Addresses: "unix:///path/to.sock" (the socket file is created with
     * socket_mode; a socket file at that path that another process listens
     * on is refused, a stale one (connect(2): ECONNREFUSED) is removed first;
     * at the end the file is removed only while it is still the one created
     * here), "host:port", "[::]:port", "0.0.0.0:port" (bound without
     * SO_REUSEPORT: a port in use is refused). At least one. */
    const char *listen[CZK_RPC_MAX_LISTEN];
    unsigned num_listen;
    unsigned socket_mode;      /* 0660 */
    size_t max_recv_bytes;     /* CZK_RPC_DEFAULT_MAX_RECV; answers are sent up to this too */
    unsigned max_calls;        /* calls served at once (a pool of this many threads; 64);
                                  more wait, received, for a free thread */
    bool cancel_on_disconnect; /* Prove: a client cancel / deadline cancels the job (true) */
    void (*log)(void *ctx, const char *level, const char *line); /* NULL: stderr */
    void *log_ctx;
} czk_rpc_server_opts;

/*
 * Fills opts with the defaults: no address, socket_mode 0660,
 * max_recv_bytes CZK_RPC_DEFAULT_MAX_RECV, max_calls 64,
 * cancel_on_disconnect true, log NULL (stderr).
 */
void czk_rpc_server_opts_default(czk_rpc_server_opts *opts) CZK_NONNULL(1);

/*
 * Binds every address and starts serving engine e (not owned; it must
 * outlive the server).
 * Addresses are checked before gRPC sees them, so that the error says why:
 * a unix path's directory exists and the path fits sun_path (107 bytes); a
 * host:port has a port 0..65535 and a host that resolves.
 * In:  opts  copied; max_calls 0 is taken as 64.
 * Out: *out  the server (czk_rpc_server_destroy); NULL on failure, when
 *            nothing is left listening.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (no address or more than
 *   CZK_RPC_MAX_LISTEN, an empty one, max_recv_bytes 0 or above 2^31 − 1,
 *   a unix path too long, "bad address ..." for a port or host);
 *   CZK_ERR_IO ("address in use" for a live unix socket or a bound port,
 *   "directory D does not exist", a non-socket file at the path, "cannot
 *   listen on A" when gRPC refuses to bind it, chmod of the socket failed);
 *   CZK_ERR_NOMEM (also a thread that cannot be started).
 */
CZK_NODISCARD czk_status czk_rpc_server_start(czk_rpc_server **out, czk_engine *e,
                                              const czk_rpc_server_opts *opts, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/*
 * The port gRPC bound for listen[i] (useful with "127.0.0.1:0"); 0 for a
 * unix: address and for i >= CZK_RPC_MAX_LISTEN.
 */
int czk_rpc_server_port(const czk_rpc_server *s, unsigned i) CZK_NONNULL(1);

/*
 * Graceful shutdown: stops taking new calls at once (they get UNAVAILABLE),
 * then waits for the calls in flight, at most grace_ms (< 0: no limit);
 * calls still running then are cancelled (their waits end, a Prove's job is
 * cancelled when cancel_on_disconnect). The engine is left alone: call
 * czk_engine_shutdown for its jobs. Idempotent.
 */
void czk_rpc_server_shutdown(czk_rpc_server *s, int64_t grace_ms);

/*
 * Shuts down (grace 0), joins the threads, removes unix socket files (each
 * only while it is still the one created here), frees. NULL is fine.
 */
void czk_rpc_server_destroy(czk_rpc_server *s);

/* Calls served since start (finished, any status). Never fails. */
uint64_t czk_rpc_server_calls(const czk_rpc_server *s) CZK_NONNULL(1);

/* ---- client ---- */

typedef struct czk_rpc_client czk_rpc_client;

/*
 * A channel to ADDR ("unix:///path", "host:port"; no TLS, as Curio). Does not
 * wait for the server: the first call does (bounded by its deadline). After a
 * failed connect it tries again after 100 ms, backing off to at most 5 s
 * (gRPC's defaults: 1 s, up to 120 s); a call made meanwhile fails at once
 * with UNAVAILABLE. Initializes gRPC (grpc_init; czk_rpc_client_close
 * shuts it down again).
 * Args: addr           the target, copied.
 *       max_msg_bytes  receive and send limit (0 = CZK_RPC_DEFAULT_MAX_RECV).
 * Out:  *out           the client (czk_rpc_client_close); NULL on failure.
 * Returns: CZK_OK; CZK_ERR_INVALID_ARG (an empty address, max_msg_bytes
 *   above 2^31 − 1, an address gRPC makes no channel for); CZK_ERR_NOMEM.
 */
CZK_NODISCARD czk_status czk_rpc_client_connect(czk_rpc_client **out, const char *addr,
                                                size_t max_msg_bytes, czk_err *err)
    CZK_NONNULL(1, 2);
/* Destroys the channel and frees the client; NULL is fine. */
void czk_rpc_client_close(czk_rpc_client *c);

/*
 * Waits until the channel is connected, at most timeout_ms (< 0: no limit).
 * Calls fail at once (UNAVAILABLE) while a channel is between failed
 * connects, and gRPC core connects only while something waits on the
 * channel: use this before the first call to a daemon that may be starting.
 * Returns: CZK_OK; CZK_ERR_TIMEOUT "rpc client: A not reachable within T
 *   ms" (also for a channel that was shut down).
 */
CZK_NODISCARD czk_status czk_rpc_client_wait_ready(czk_rpc_client *c, int64_t timeout_ms,
                                                   czk_err *err) CZK_NONNULL(1);

/*
 * Every call below takes deadline_ms (< 0: none; else the call's gRPC deadline
 * from now) and maps a gRPC failure to a czk_status, with the server's message
 * in err ("<Method>: <GRPC_CODE>: <message>"):
 *   INVALID_ARGUMENT, NOT_FOUND           -> CZK_ERR_INVALID_ARG
 *   UNIMPLEMENTED                         -> CZK_ERR_UNSUPPORTED
 *   ALREADY_EXISTS, FAILED_PRECONDITION   -> CZK_ERR_MISMATCH
 *   DEADLINE_EXCEEDED                     -> CZK_ERR_TIMEOUT
 *   CANCELLED                             -> CZK_ERR_CANCELLED
 *   UNAVAILABLE                           -> CZK_ERR_IO
 *   RESOURCE_EXHAUSTED                    -> CZK_ERR_NOMEM
 *   others                                -> CZK_ERR_INTERNAL
 * An OK answer without a message, or one that does not unpack, is
 * CZK_ERR_FORMAT; the client's own allocations CZK_ERR_NOMEM.
 * grpc_code (may be NULL) receives the raw grpc_status_code (0 = OK;
 * UNKNOWN (2) when the call could not be started).
 */

/*
 * SubmitProof.
 * In:  req             the request (vanilla proofs sent as they are).
 * Out: job_id          the job's id ("" on failure); queue_position (may be
 *                      NULL) the jobs ahead of it.
 * Returns: CZK_OK; the mapped failure (above).
 */
CZK_NODISCARD czk_status czk_rpc_submit(czk_rpc_client *c, const czk_proof_request *req,
                                        char job_id[CZK_JOB_ID_MAX], uint32_t *queue_position,
                                        int64_t deadline_ms, int *grpc_code, czk_err *err)
    CZK_NONNULL(1, 2, 3);

/*
 * AwaitProof (timeout_ms 0 = no limit). out is filled as by czk_engine_await
 * (state COMPLETED/FAILED/CANCELLED/TIMEOUT, proof bytes, timings); free it
 * with czk_job_result_free (also after a failure: out is zeroed first).
 * A FAILED job has out->error (the server's message) and error_code
 * CZK_ERR_INTERNAL whatever the engine's code was: the wire carries only
 * the message.
 * Returns: CZK_OK whenever the server answered OK (check out->state), else
 *   the mapped failure.
 */
CZK_NODISCARD czk_status czk_rpc_await(czk_rpc_client *c, const char *job_id, uint64_t timeout_ms,
                                       int64_t deadline_ms, czk_job_result *out, int *grpc_code,
                                       czk_err *err) CZK_NONNULL(1, 2, 5);

/*
 * Prove: submit and wait in one call (the job ends with the call's deadline,
 * see Prove above). Out, Returns: as czk_rpc_await; CZK_ERR_FORMAT for an
 * answer without a result.
 */
CZK_NODISCARD czk_status czk_rpc_prove(czk_rpc_client *c, const czk_proof_request *req,
                                       int64_t deadline_ms, czk_job_result *out, int *grpc_code,
                                       czk_err *err) CZK_NONNULL(1, 2, 4);

/*
 * CancelProof. Out: was_running (may be NULL): the job had not finished;
 * false on failure. Returns: CZK_OK; the mapped failure (NOT_FOUND ->
 * CZK_ERR_INVALID_ARG for an unknown job).
 */
CZK_NODISCARD czk_status czk_rpc_cancel(czk_rpc_client *c, const char *job_id, bool *was_running,
                                        int64_t deadline_ms, int *grpc_code, czk_err *err)
    CZK_NONNULL(1, 2);

/* GetStatusResponse as plain C. Strings are NUL-terminated, cut to fit. */
typedef struct czk_rpc_gpu_status {
    uint32_t ordinal; /* the CUDA index; 0 for a CPU pseudo-device */
    char name[96];    /* the card's name ("NVIDIA H200", "cpu pseudo-device 0") */
    uint64_t vram_total_bytes, vram_free_bytes;
    char current_job_id[CZK_JOB_ID_MAX];
    char current_proof_kind[32];
    /* czk's fields (a cuzk daemon leaves them empty) */
    uint32_t index;      /* its place among the daemon's devices */
    char uuid[48];       /* "GPU-..." ("" none) */
    char pci_bus_id[32]; /* "0000:17:00.0" ("" none) */
    char backend[16];    /* "cuda", "cpu" */
    bool cpu_pseudo_device;
    bool failed;     /* a device failure: it takes no more work */
    char error[256]; /* failed: why */
    uint64_t partitions_proved, partitions_requeued, busy_ms;
} czk_rpc_gpu_status;

typedef struct czk_rpc_srs_status {
    char circuit_id[CZK_CIRCUIT_ID_MAX];
    czk_srs_tier tier; /* as SRSStatus.Tier on the wire, which czk's server fills as:
                          HOT (0) = resident on a device, WARM (1) = in host memory only,
                          COLD (2) = not resident yet (loading) */
    uint64_t size_bytes;
    uint32_t ref_count;
} czk_rpc_srs_status;

typedef struct czk_rpc_queue_status {
    char proof_kind[32]; /* "porep-c2", ... */
    uint32_t pending, in_progress;
} czk_rpc_queue_status;

/* One entry of GetStatusResponse.jobs (czk's own field; a cuzk daemon sends none). */
typedef struct czk_rpc_job_status {
    char job_id[CZK_JOB_ID_MAX];
    char proof_kind[32];
    czk_job_state state; /* QUEUED, RUNNING, CANCELLING; or finished with partitions stopping */
    uint32_t partitions, finalized, in_flight;
    uint64_t age_ms;
} czk_rpc_job_status;

typedef struct czk_rpc_status {
    czk_rpc_gpu_status *gpus;
    size_t num_gpus;
    czk_rpc_srs_status *loaded_srs;
    size_t num_srs;
    czk_rpc_queue_status *queues;
    size_t num_queues;
    uint64_t total_proofs_completed, total_proofs_failed, uptime_seconds;
    uint64_t pinned_memory_bytes, pinned_memory_limit_bytes;
    czk_rpc_job_status *jobs; /* the jobs in flight (GetStatusResponse.jobs) */
    size_t num_jobs;
} czk_rpc_status;

/*
 * GetStatus. Out: *out (czk_rpc_status_free); NULL on failure.
 * Returns: CZK_OK; the mapped failure.
 */
CZK_NODISCARD czk_status czk_rpc_get_status(czk_rpc_client *c, czk_rpc_status **out,
                                            int64_t deadline_ms, int *grpc_code, czk_err *err)
    CZK_NONNULL(1, 2);
/* Frees a status and its arrays; NULL is fine. */
void czk_rpc_status_free(czk_rpc_status *s);

/*
 * GetMetrics. Out: *text  the Prometheus text, malloc'ed, NUL-terminated
 * (free()); NULL on failure. Returns: CZK_OK; the mapped failure.
 */
CZK_NODISCARD czk_status czk_rpc_get_metrics(czk_rpc_client *c, char **text, int64_t deadline_ms,
                                             int *grpc_code, czk_err *err) CZK_NONNULL(1, 2);

/*
 * PreloadSRS / EvictSRS of a circuit id (czk_engine's circuit names).
 * Out: already_loaded, load_ms / was_loaded, freed_bytes: may be NULL; left
 *   untouched on failure.
 * Returns: CZK_OK; the mapped failure (an unknown circuit CZK_ERR_INVALID_ARG,
 *   a load failure CZK_ERR_INTERNAL, an SRS in use CZK_ERR_MISMATCH).
 */
CZK_NODISCARD czk_status czk_rpc_preload(czk_rpc_client *c, const char *circuit_id,
                                         bool *already_loaded, uint64_t *load_ms,
                                         int64_t deadline_ms, int *grpc_code, czk_err *err)
    CZK_NONNULL(1, 2);
CZK_NODISCARD czk_status czk_rpc_evict(czk_rpc_client *c, const char *circuit_id, bool *was_loaded,
                                       uint64_t *freed_bytes, int64_t deadline_ms, int *grpc_code,
                                       czk_err *err) CZK_NONNULL(1, 2);

/*
 * One unary call with raw message bytes: method "/cuzk.v1.ProvingEngine/Prove"
 * etc. For tests and tools that send what the typed calls cannot (malformed
 * messages).
 * In:  req, req_len     the message bytes, sent as they are.
 * Out: *resp, resp_len  the answer's bytes when the status is OK (malloc'ed,
 *                       free(); NULL when empty); NULL and 0 otherwise.
 * Returns: CZK_OK; the mapped failure.
 */
CZK_NODISCARD czk_status czk_rpc_call_raw(czk_rpc_client *c, const char *method, const uint8_t *req,
                                          size_t req_len, uint8_t **resp, size_t *resp_len,
                                          int64_t deadline_ms, int *grpc_code, czk_err *err)
    CZK_NONNULL(1, 2, 5, 6);

/* "OK", "INVALID_ARGUMENT", ... for a grpc_status_code; "UNKNOWN_CODE" outside 0..16. Static. */
const char *czk_rpc_code_name(int grpc_code);

#ifdef __cplusplus
}
#endif
#endif
