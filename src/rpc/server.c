/*
 * The cuzk.v1.ProvingEngine server on gRPC's core C API.
 *
 * One completion queue and one dispatcher thread: the dispatcher keeps
 * REQUESTS_OUTSTANDING grpc_server_request_call's open, hands each new call
 * to a worker thread (a pool of opts.max_calls) and routes the completions
 * of the calls' batches to them. A worker serves one call:
 *   1. starts {RECV_CLOSE_ON_SERVER} first, so that a client's cancel or
 *      deadline is seen while the call runs (the dispatcher then cancels the
 *      call's job when it is a Prove);
 *   2. {SEND_INITIAL_METADATA, RECV_MESSAGE}, the request;
 *   3. the engine call (Prove / AwaitProof wait in slices of WAIT_SLICE_MS
 *      and stop when the call closed; a Prove's job is cancelled when its
 *      call closes early, unless another open Prove call waits for the same
 *      job: a client that died and came back with the same request id
 *      keeps the job it attached to);
 *   4. {SEND_MESSAGE, SEND_STATUS_FROM_SERVER}, then waits for the close.
 * Memory for a request: gRPC's slices are joined into one buffer, each
 * released as it is copied (internal.h); SubmitProof and Prove are decoded
 * in place (decode.c), so the payload the engine takes in is that buffer;
 * it is dropped once submitted. See rpc.h for the wire semantics.
 */
#define _GNU_SOURCE
#include "czk/httpstatus.h" /* czk_metrics_text: GetMetrics */
#include "rpc/internal.h"
#include "util/time.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define REQUESTS_OUTSTANDING 8
#define WAIT_SLICE_MS 100

enum tag_kind { TAG_NEW, TAG_CLOSE, TAG_RECV, TAG_SEND, TAG_SHUTDOWN };

typedef struct srv_call srv_call;

typedef struct srv_tag {
    enum tag_kind kind;
    srv_call *call;
} srv_tag;

/* Completion bits of a call's batches. */
enum { DONE_CLOSE = 1, DONE_RECV = 2, DONE_SEND = 4 };

struct srv_call {
    czk_rpc_server *srv;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *payload;
    int close_cancelled; /* RECV_CLOSE_ON_SERVER's answer */
    srv_tag t_new, t_close, t_recv, t_send;
    pthread_cond_t cv;
    unsigned done; /* DONE_*, under srv->mu */
    bool ok_recv;
    bool prove;                  /* the job below is cancelled when the call closes early */
    char job_id[CZK_JOB_ID_MAX]; /* the job of a Prove, once submitted */
    srv_call *next;              /* work queue */
    srv_call *prove_next;        /* the server's open Prove calls (srv->proves), under srv->mu */
};

struct czk_rpc_server {
    czk_engine *engine;
    czk_rpc_server_opts opts;
    char socket_paths[CZK_RPC_MAX_LISTEN][256];
    /* the socket file this server created: removed at the end only while it is still this one */
    dev_t socket_dev[CZK_RPC_MAX_LISTEN];
    ino_t socket_ino[CZK_RPC_MAX_LISTEN];
    /* a socket file of someone else found at our path at shutdown: linked aside here while
     * gRPC tears its listener down (gRPC unlinks the path) and put back afterwards */
    char socket_keep[CZK_RPC_MAX_LISTEN][300];
    int ports[CZK_RPC_MAX_LISTEN];
    grpc_server *server;
    grpc_completion_queue *cq;
    pthread_t dispatcher;
    pthread_t *workers;
    unsigned num_workers;
    bool dispatcher_started;

    pthread_mutex_t mu;
    pthread_cond_t cv; /* work queue, active count, shutdown_done */
    srv_call *queue, **queue_tail;
    srv_call *proves; /* Prove calls with a job, until they are answered */
    unsigned active;  /* calls queued or being served */
    bool stopping_workers;
    bool shut;          /* grpc_server_shutdown_and_notify called */
    bool shutdown_done; /* its tag arrived */
    srv_tag t_shutdown;
    _Atomic uint64_t calls;
};

static void srv_log(czk_rpc_server *s, const char *level, const char *fmt, ...) CZK_PRINTF(3, 4);
static void srv_log(czk_rpc_server *s, const char *level, const char *fmt, ...) {
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (s->opts.log)
        s->opts.log(s->opts.log_ctx, level, line);
    else
        fprintf(stderr, "czk rpc %s: %s\n", level, line);
}

void czk_rpc_server_opts_default(czk_rpc_server_opts *o) {
    memset(o, 0, sizeof *o);
    o->socket_mode = 0660;
    o->max_recv_bytes = CZK_RPC_DEFAULT_MAX_RECV;
    o->max_calls = 64;
    o->cancel_on_disconnect = true;
}

/* For engine calls whose failure changes nothing here (the result says it all). */
static inline void ignore(czk_status st) {
    (void)st;
}

/* ---- calls: request, completion routing ---- */

static srv_call *call_new(czk_rpc_server *s) {
    srv_call *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->srv = s;
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    pthread_cond_init(&c->cv, NULL);
    c->t_new = (srv_tag){TAG_NEW, c};
    c->t_close = (srv_tag){TAG_CLOSE, c};
    c->t_recv = (srv_tag){TAG_RECV, c};
    c->t_send = (srv_tag){TAG_SEND, c};
    return c;
}

static void call_free(srv_call *c) {
    if (!c) return;
    if (c->payload) grpc_byte_buffer_destroy(c->payload);
    if (c->call) grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    pthread_cond_destroy(&c->cv);
    free(c);
}

/* Asks gRPC for one more incoming call (under s->mu or before threads start). */
static void request_one(czk_rpc_server *s) {
    if (s->shut) return;
    srv_call *c = call_new(s);
    if (!c) {
        srv_log(s, "error", "out of memory for an incoming call");
        return;
    }
    grpc_call_error e =
        grpc_server_request_call(s->server, &c->call, &c->details, &c->md, s->cq, s->cq, &c->t_new);
    if (e != GRPC_CALL_OK) {
        srv_log(s, "error", "grpc_server_request_call: error %d", (int)e);
        call_free(c);
    }
}

/* Another open Prove call waits for c's job (under s->mu). */
static bool other_prove_waits(czk_rpc_server *s, const srv_call *c) {
    for (const srv_call *o = s->proves; o; o = o->prove_next)
        if (o != c && !(o->done & DONE_CLOSE) && !strcmp(o->job_id, c->job_id)) return true;
    return false;
}

/* Takes c off the list of open Prove calls (under s->mu). */
static void prove_unlist(czk_rpc_server *s, srv_call *c) {
    for (srv_call **pp = &s->proves; *pp; pp = &(*pp)->prove_next)
        if (*pp == c) {
            *pp = c->prove_next;
            c->prove_next = NULL;
            return;
        }
}

static void *dispatcher_main(void *arg) {
    czk_rpc_server *s = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
        if (ev.type != GRPC_OP_COMPLETE) continue;
        srv_tag *t = ev.tag;
        srv_call *c = t->call;
        char cancel_job[CZK_JOB_ID_MAX] = "";
        pthread_mutex_lock(&s->mu);
        switch (t->kind) {
        case TAG_SHUTDOWN:
            s->shutdown_done = true;
            pthread_cond_broadcast(&s->cv);
            break;
        case TAG_NEW:
            if (!ev.success) { /* the server is shutting down */
                pthread_mutex_unlock(&s->mu);
                call_free(c);
                continue;
            }
            request_one(s);
            s->active++;
            c->next = NULL;
            *s->queue_tail = c;
            s->queue_tail = &c->next;
            pthread_cond_broadcast(&s->cv);
            break;
        case TAG_CLOSE:
            c->done |= DONE_CLOSE;
            if (c->prove && c->job_id[0] && s->opts.cancel_on_disconnect && c->close_cancelled &&
                !(c->done & DONE_SEND) && !other_prove_waits(s, c))
                memcpy(cancel_job, c->job_id, sizeof cancel_job);
            pthread_cond_broadcast(&c->cv);
            break;
        case TAG_RECV:
            c->done |= DONE_RECV;
            c->ok_recv = ev.success;
            pthread_cond_broadcast(&c->cv);
            break;
        case TAG_SEND:
            c->done |= DONE_SEND;
            pthread_cond_broadcast(&c->cv);
            break;
        }
        pthread_mutex_unlock(&s->mu);
        if (cancel_job[0]) {
            bool was_running = false;
            if (!czk_engine_cancel(s->engine, cancel_job, &was_running, NULL) && was_running)
                srv_log(s, "info",
                        "Prove %s: the client went away (cancel or deadline); job cancelled",
                        cancel_job);
        }
    }
    return NULL;
}

static void call_wait(srv_call *c, unsigned bit) {
    czk_rpc_server *s = c->srv;
    pthread_mutex_lock(&s->mu);
    while (!(c->done & bit))
        pthread_cond_wait(&c->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static bool call_closed(srv_call *c) {
    pthread_mutex_lock(&c->srv->mu);
    bool closed = (c->done & DONE_CLOSE) != 0;
    pthread_mutex_unlock(&c->srv->mu);
    return closed;
}

/* ---- answers ---- */

typedef struct answer {
    grpc_status_code code;
    char msg[640];
    ProtobufCMessage *resp; /* OK only; freed by its owner */
} answer;

static grpc_status_code fail(answer *a, grpc_status_code code, const char *fmt, ...)
    CZK_PRINTF(3, 4);
static grpc_status_code fail(answer *a, grpc_status_code code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->code = code;
    return code;
}

/* The gRPC status for an engine failure of a request (not of a proof). */
static grpc_status_code code_for(czk_status st) {
    switch (st) {
    case CZK_OK:
        return GRPC_STATUS_OK;
    case CZK_ERR_NOMEM:
        return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CZK_ERR_UNSUPPORTED:
        return GRPC_STATUS_UNIMPLEMENTED;
    case CZK_ERR_CANCELLED:
        return GRPC_STATUS_UNAVAILABLE;
    case CZK_ERR_TIMEOUT:
        return GRPC_STATUS_DEADLINE_EXCEEDED;
    case CZK_ERR_IO:
    case CZK_ERR_INTERNAL:
        return GRPC_STATUS_INTERNAL;
    default: /* argument, format, encoding, mismatch: the request's fault */
        return GRPC_STATUS_INVALID_ARGUMENT;
    }
}

/* ---- request -> engine ---- */

/* A 32-byte field: empty (zeros) or exactly 32 bytes. */
static bool take32(uint8_t out[32], ProtobufCBinaryData b) {
    memset(out, 0, 32);
    if (!b.len) return true;
    if (b.len != 32) return false;
    memcpy(out, b.data, 32);
    return true;
}

/*
 * Submits r. On success job_id is set and the job is live or finished. The
 * engine says which kinds it serves (UNIMPLEMENTED for a cuzk.v1 ProofKind
 * it does not serve, INVALID_ARGUMENT for a number that is neither) and
 * refuses a payload its kind refuses at intake (INVALID_ARGUMENT, or the
 * code of the kind's status).
 */
static grpc_status_code submit(czk_rpc_server *s, const Cuzk__V1__SubmitProofRequest *r,
                               char job_id[CZK_JOB_ID_MAX], uint32_t *queue_pos, answer *a) {
    int kind = (int)r->proof_kind;
    if (kind == CZK_KIND_UNSPECIFIED)
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "proof_kind is PROOF_KIND_UNSPECIFIED");
    czk_err kerr;
    czk_status kst = kind < 0 || kind >= CZK_KIND_MAX
                         ? CZK_ERR_UNSUPPORTED
                         : czk_engine_kind_served(s->engine, (czk_kind_id)kind, NULL, &kerr);
    if (kst == CZK_ERR_UNSUPPORTED &&
        !protobuf_c_enum_descriptor_get_value(&cuzk__v1__proof_kind__descriptor, kind))
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "unknown proof_kind %d", kind);
    if (kst) return fail(a, code_for(kst), "%s", kerr.msg);
    if ((unsigned)r->priority > CZK_PRIORITY_CRITICAL)
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "unknown priority %d", (int)r->priority);
    czk_proof_request req;
    memset(&req, 0, sizeof req);
    req.request_id = czk_rpc_str(r->request_id);
    req.kind = (czk_kind_id)kind;
    req.priority = (czk_priority)r->priority;
    req.sector_size = r->sector_size;
    req.registered_proof = r->registered_proof;
    req.vanilla_proof = r->vanilla_proof.data;
    req.vanilla_proof_len = r->vanilla_proof.len;
    req.sector_number = r->sector_number;
    req.miner_id = r->miner_id;
    req.partition_index = r->partition_index;
    if (!take32(req.randomness, r->randomness))
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "randomness is %zu bytes, not 32",
                    r->randomness.len);
    if (!take32(req.comm_r_old, r->comm_r_old) || !take32(req.comm_r_new, r->comm_r_new) ||
        !take32(req.comm_d_new, r->comm_d_new))
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT,
                    "comm_r_old, comm_r_new and comm_d_new must be empty or 32 bytes");
    const uint8_t **vp = NULL;
    size_t *vl = NULL;
    if (r->n_vanilla_proofs) {
        vp = calloc(r->n_vanilla_proofs, sizeof *vp);
        vl = calloc(r->n_vanilla_proofs, sizeof *vl);
        if (!vp || !vl) {
            free(vp);
            free(vl);
            return fail(a, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
        }
        for (size_t i = 0; i < r->n_vanilla_proofs; i++) {
            vp[i] = r->vanilla_proofs[i].data;
            vl[i] = r->vanilla_proofs[i].len;
        }
        req.vanilla_proofs = vp;
        req.vanilla_proofs_len = vl;
        req.num_vanilla_proofs = r->n_vanilla_proofs;
    }
    czk_err err;
    czk_err_clear(&err);
    czk_submit_info info;
    czk_status st = czk_engine_submit(s->engine, &req, job_id, &info, &err);
    free(vp);
    free(vl);
    if (queue_pos) *queue_pos = info.queue_position;
    if (!st) return GRPC_STATUS_OK;
    /* MISMATCH: the request id names a job of another request (that job is there), unless
     * the kind found the payload inconsistent at intake (no job is kept) */
    if (st == CZK_ERR_MISMATCH && !info.refused)
        return fail(a, GRPC_STATUS_ALREADY_EXISTS, "%s", err.msg);
    return fail(a, code_for(st), "%s", err.msg);
}

/* An engine result as an AwaitProofResponse (proof bytes borrowed from res). */
static void result_to_proto(Cuzk__V1__AwaitProofResponse *p, const czk_job_result *res) {
    cuzk__v1__await_proof_response__init(p);
    p->job_id = (char *)res->job_id;
    switch (res->state) {
    case CZK_JOB_COMPLETED:
        p->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
        break;
    case CZK_JOB_FAILED:
        p->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
        break;
    case CZK_JOB_CANCELLED:
        p->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
        break;
    case CZK_JOB_TIMEOUT:
        p->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
        break;
    default:
        p->status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__UNKNOWN;
        break;
    }
    if (res->state == CZK_JOB_COMPLETED) {
        p->proof.data = res->proof;
        p->proof.len = res->proof_len;
    }
    p->error_message = (char *)(res->state == CZK_JOB_FAILED      ? res->error
                                : res->state == CZK_JOB_CANCELLED ? "cancelled"
                                                                  : "");
    p->queue_wait_ms = res->queue_wait_ms;
    p->srs_load_ms = res->srs_load_ms;
    p->synthesis_ms = res->synthesis_ms;
    p->gpu_compute_ms = res->gpu_compute_ms;
    p->total_ms = res->total_ms;
}

/*
 * Waits for a job in slices, up to timeout_ms (0: no limit), while the call
 * is open. Returns the engine's status; res is filled (TIMEOUT when the
 * limit passed or the call closed: *closed says which).
 */
static czk_status wait_job(srv_call *c, const char *job_id, uint64_t timeout_ms,
                           czk_job_result *res, bool *closed, czk_err *err) {
    uint64_t end = timeout_ms ? czk_now_ms() + timeout_ms : UINT64_MAX;
    *closed = false;
    for (;;) {
        uint64_t now = czk_now_ms();
        int64_t slice = WAIT_SLICE_MS;
        if (end != UINT64_MAX && end - now < WAIT_SLICE_MS)
            slice = now >= end ? 0 : (int64_t)(end - now);
        czk_status st = czk_engine_await(c->srv->engine, job_id, slice, res, err);
        if (st != CZK_ERR_TIMEOUT) return st;
        if (end != UINT64_MAX && czk_now_ms() >= end) return st;
        if (call_closed(c)) {
            *closed = true;
            return st;
        }
        czk_job_result_free(res);
    }
}

/* ---- handlers: each unpacks its request, fills a->resp or fails ---- */

#define UNPACK(type, fn, var, what)                                                                \
    type *var = fn##__unpack(NULL, GRPC_SLICE_LENGTH(in), GRPC_SLICE_START_PTR(in));               \
    grpc_slice_unref(in);                                                                          \
    if (!var) return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "malformed " what " message");

/* Storage that outlives a handler until the answer is sent. */
typedef struct keep {
    czk_job_result res;
    bool have_res;
    Cuzk__V1__AwaitProofResponse await;
    Cuzk__V1__ProveResponse prove;
    Cuzk__V1__SubmitProofResponse submit;
    Cuzk__V1__CancelProofResponse cancel;
    Cuzk__V1__PreloadSrsResponse preload;
    Cuzk__V1__EvictSrsResponse evict;
    Cuzk__V1__GetMetricsResponse metrics;
    char *metrics_text;
    Cuzk__V1__GetStatusResponse status;
    czk_engine_status *est;
    Cuzk__V1__GPUStatus *gpus, **gpu_ptrs;
    Cuzk__V1__SRSStatus *srs, **srs_ptrs;
    Cuzk__V1__QueueStatus *queues, **queue_ptrs;
    Cuzk__V1__JobStatus *jobs, **job_ptrs;
    char job_id[CZK_JOB_ID_MAX];
} keep;

static void keep_free(keep *k) {
    if (k->have_res) czk_job_result_free(&k->res);
    free(k->metrics_text);
    czk_engine_status_free(k->est);
    free(k->gpus);
    free(k->gpu_ptrs);
    free(k->srs);
    free(k->srs_ptrs);
    free(k->queues);
    free(k->queue_ptrs);
    free(k->jobs);
    free(k->job_ptrs);
}

/*
 * The received request is decoded in place (no copy of its payload) and
 * dropped once the engine has taken it in; heap pages of a large one go back
 * to the system at once (malloc_trim), so that a request's peak is its bytes
 * twice (gRPC's slices and their joined copy) plus what the engine keeps.
 */
static void drop_request(grpc_slice in) {
    size_t n = GRPC_SLICE_LENGTH(in);
    grpc_slice_unref(in);
    if (n >= (4u << 20)) malloc_trim(0);
}

static grpc_status_code h_submit(srv_call *c, grpc_slice in, answer *a, keep *k) {
    czk_rpc_submit_view v;
    if (!czk_rpc_decode_submit(&v, GRPC_SLICE_START_PTR(in), GRPC_SLICE_LENGTH(in))) {
        drop_request(in);
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "malformed SubmitProofRequest message");
    }
    uint32_t qp = 0;
    grpc_status_code code = submit(c->srv, &v.msg, k->job_id, &qp, a);
    czk_rpc_submit_view_free(&v);
    drop_request(in);
    if (code) return code;
    cuzk__v1__submit_proof_response__init(&k->submit);
    k->submit.job_id = k->job_id;
    k->submit.queue_position = qp;
    k->submit.assigned_gpu = "";
    a->resp = &k->submit.base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_await(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__AwaitProofRequest, cuzk__v1__await_proof_request, r, "AwaitProofRequest");
    snprintf(k->job_id, sizeof k->job_id, "%s", czk_rpc_str(r->job_id));
    uint64_t timeout = r->timeout_ms;
    protobuf_c_message_free_unpacked(&r->base, NULL);
    czk_err err;
    czk_err_clear(&err);
    bool closed;
    czk_status st = wait_job(c, k->job_id, timeout, &k->res, &closed, &err);
    k->have_res = true;
    if (st == CZK_ERR_INVALID_ARG && k->res.state == CZK_JOB_UNKNOWN)
        return fail(a, GRPC_STATUS_NOT_FOUND,
                    "no job %s (never submitted, or its result was pruned: results are kept "
                    "for scheduler.result_retention after the job finished)",
                    k->job_id);
    if (closed) return fail(a, GRPC_STATUS_CANCELLED, "the client went away");
    if (st && st != CZK_ERR_TIMEOUT) return fail(a, code_for(st), "%s", err.msg);
    result_to_proto(&k->await, &k->res);
    a->resp = &k->await.base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_prove(srv_call *c, grpc_slice in, answer *a, keep *k) {
    czk_rpc_submit_view v;
    if (!czk_rpc_decode_prove(&v, GRPC_SLICE_START_PTR(in), GRPC_SLICE_LENGTH(in))) {
        drop_request(in);
        return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "malformed ProveRequest message");
    }
    grpc_status_code code =
        v.present ? submit(c->srv, &v.msg, k->job_id, NULL, a)
                  : fail(a, GRPC_STATUS_INVALID_ARGUMENT, "ProveRequest without submit");
    czk_rpc_submit_view_free(&v);
    drop_request(in); /* the payload is no longer needed */
    if (code) return code;
    czk_rpc_server *s = c->srv;
    pthread_mutex_lock(&s->mu);
    c->prove = true;
    memcpy(c->job_id, k->job_id, sizeof c->job_id);
    c->prove_next = s->proves;
    s->proves = c;
    bool closed_early = (c->done & DONE_CLOSE) && c->close_cancelled && !other_prove_waits(s, c);
    pthread_mutex_unlock(&s->mu);
    if (closed_early && s->opts.cancel_on_disconnect)
        ignore(czk_engine_cancel(s->engine, k->job_id, NULL, NULL));
    czk_err err;
    czk_err_clear(&err);
    bool closed;
    czk_status st = wait_job(c, k->job_id, 0, &k->res, &closed, &err);
    k->have_res = true;
    pthread_mutex_lock(&s->mu);
    prove_unlist(s, c);
    pthread_mutex_unlock(&s->mu);
    if (closed) /* the dispatcher cancelled the job (unless another call waits for it) */
        return fail(a, GRPC_STATUS_CANCELLED, "the client went away; job %s %s", k->job_id,
                    s->opts.cancel_on_disconnect ? "cancelled" : "left running");
    if (st) return fail(a, code_for(st), "%s", err.msg);
    result_to_proto(&k->await, &k->res);
    cuzk__v1__prove_response__init(&k->prove);
    k->prove.result = &k->await;
    a->resp = &k->prove.base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_cancel(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__CancelProofRequest, cuzk__v1__cancel_proof_request, r, "CancelProofRequest");
    snprintf(k->job_id, sizeof k->job_id, "%s", czk_rpc_str(r->job_id));
    protobuf_c_message_free_unpacked(&r->base, NULL);
    bool was_running = false;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_engine_cancel(c->srv->engine, k->job_id, &was_running, &err);
    if (st == CZK_ERR_INVALID_ARG) return fail(a, GRPC_STATUS_NOT_FOUND, "%s", err.msg);
    if (st) return fail(a, code_for(st), "%s", err.msg);
    cuzk__v1__cancel_proof_response__init(&k->cancel);
    k->cancel.was_running = was_running;
    a->resp = &k->cancel.base;
    return GRPC_STATUS_OK;
}

/*
 * SRS tiers as the issue names them: HOT = resident on a device, WARM = in
 * host memory only, COLD = not resident (loading).
 */
static Cuzk__V1__SRSStatus__Tier tier_of(const czk_engine_srs_status *s) {
    /* czk_srs_tier uses the proto's numbers: HOT = VRAM, WARM = host, COLD = disk */
    return (Cuzk__V1__SRSStatus__Tier)s->tier;
}

static grpc_status_code h_status(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__GetStatusRequest, cuzk__v1__get_status_request, r, "GetStatusRequest");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_engine_status_get(c->srv->engine, &k->est, &err);
    if (st) return fail(a, code_for(st), "%s", err.msg);
    const czk_engine_status *e = k->est;
    Cuzk__V1__GetStatusResponse *p = &k->status;
    cuzk__v1__get_status_response__init(p);
    k->gpus = calloc(e->num_devices + 1, sizeof *k->gpus);
    k->gpu_ptrs = calloc(e->num_devices + 1, sizeof *k->gpu_ptrs);
    k->srs = calloc(e->num_srs + 1, sizeof *k->srs);
    k->srs_ptrs = calloc(e->num_srs + 1, sizeof *k->srs_ptrs);
    k->queues = calloc(e->num_queues + 1, sizeof *k->queues);
    k->queue_ptrs = calloc(e->num_queues + 1, sizeof *k->queue_ptrs);
    k->jobs = calloc(e->num_jobs + 1, sizeof *k->jobs);
    k->job_ptrs = calloc(e->num_jobs + 1, sizeof *k->job_ptrs);
    if (!k->gpus || !k->gpu_ptrs || !k->srs || !k->srs_ptrs || !k->queues || !k->queue_ptrs ||
        !k->jobs || !k->job_ptrs)
        return fail(a, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    for (size_t i = 0; i < e->num_devices; i++) {
        const czk_engine_device_status *d = &e->devices[i];
        Cuzk__V1__GPUStatus *g = &k->gpus[i];
        cuzk__v1__gpustatus__init(g);
        g->ordinal = d->ordinal < 0 ? 0 : (uint32_t)d->ordinal; /* a CPU pseudo-device: 0 */
        g->name = (char *)d->identity.name;
        g->index = (uint32_t)d->index;
        g->uuid = (char *)d->identity.uuid;
        g->pci_bus_id = (char *)d->identity.pci_bus_id;
        g->backend = (char *)d->name;
        g->cpu_pseudo_device = d->ordinal < 0;
        g->failed = d->failed;
        g->error = (char *)d->error;
        g->partitions_proved = d->partitions_proved;
        g->partitions_requeued = d->partitions_requeued;
        g->busy_ms = d->busy_ms;
        g->vram_total_bytes = d->vram_total_bytes;
        g->vram_free_bytes = d->vram_free_bytes;
        g->current_job_id = (char *)d->current_job_id;
        g->current_proof_kind =
            (char *)(d->current_job_id[0] ? czk_engine_status_kind_name(e, d->current_kind) : "");
        k->gpu_ptrs[i] = g;
    }
    p->n_gpus = e->num_devices;
    p->gpus = k->gpu_ptrs;
    for (size_t i = 0; i < e->num_srs; i++) {
        const czk_engine_srs_status *x = &e->srs[i];
        Cuzk__V1__SRSStatus *q = &k->srs[i];
        cuzk__v1__srsstatus__init(q);
        q->circuit_id = (char *)x->circuit_id;
        q->tier = tier_of(x);
        q->size_bytes = x->size_bytes > x->device_bytes ? x->size_bytes : x->device_bytes;
        q->ref_count = x->ref_count;
        k->srs_ptrs[i] = q;
    }
    p->n_loaded_srs = e->num_srs;
    p->loaded_srs = k->srs_ptrs;
    for (size_t i = 0; i < e->num_queues; i++) {
        Cuzk__V1__QueueStatus *q = &k->queues[i];
        cuzk__v1__queue_status__init(q);
        q->proof_kind = (char *)czk_engine_status_kind_name(e, e->queues[i].kind);
        q->pending = e->queues[i].pending;
        q->in_progress = e->queues[i].in_progress;
        k->queue_ptrs[i] = q;
    }
    p->n_queues = e->num_queues;
    p->queues = k->queue_ptrs;
    for (size_t i = 0; i < e->num_jobs; i++) {
        const czk_job_info *j = &e->jobs[i];
        Cuzk__V1__JobStatus *q = &k->jobs[i];
        cuzk__v1__job_status__init(q);
        q->job_id = (char *)j->job_id;
        q->proof_kind = (char *)czk_engine_status_kind_name(e, j->kind);
        /* JobStatus.State has czk_job_state's numbers */
        q->state = protobuf_c_enum_descriptor_get_value(&cuzk__v1__job_status__state__descriptor,
                                                        (int)j->state)
                       ? (Cuzk__V1__JobStatus__State)j->state
                       : CUZK__V1__JOB_STATUS__STATE__UNKNOWN;
        q->partitions = j->partitions;
        q->partitions_finalized = j->finalized;
        q->partitions_in_flight = j->in_flight;
        q->age_ms = j->age_ms;
        k->job_ptrs[i] = q;
    }
    p->n_jobs = e->num_jobs;
    p->jobs = k->job_ptrs;
    p->total_proofs_completed = e->proofs_completed;
    p->total_proofs_failed = e->proofs_failed;
    p->uptime_seconds = e->uptime_ms / 1000;
    p->pinned_memory_bytes = e->pinned_memory_bytes;
    p->pinned_memory_limit_bytes = e->pinned_memory_limit_bytes;
    a->resp = &p->base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_metrics(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__GetMetricsRequest, cuzk__v1__get_metrics_request, r, "GetMetricsRequest");
    protobuf_c_message_free_unpacked(&r->base, NULL);
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_metrics_text(c->srv->engine, &k->metrics_text, &err);
    if (st) return fail(a, code_for(st), "%s", err.msg);
    cuzk__v1__get_metrics_response__init(&k->metrics);
    k->metrics.prometheus_text = k->metrics_text;
    a->resp = &k->metrics.base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_preload(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__PreloadSrsRequest, cuzk__v1__preload_srs_request, r, "PreloadSrsRequest");
    char id[CZK_CIRCUIT_ID_MAX + 64];
    snprintf(id, sizeof id, "%s", czk_rpc_str(r->circuit_id));
    protobuf_c_message_free_unpacked(&r->base, NULL);
    bool already = false;
    uint64_t ms = 0;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_engine_preload(c->srv->engine, id, true, &already, &ms, &err);
    /* err.msg names the circuit already ("preload ID: ...") */
    if (st == CZK_ERR_INVALID_ARG) return fail(a, GRPC_STATUS_INVALID_ARGUMENT, "%s", err.msg);
    /* the key file is missing, unreadable or not a key for this circuit: the host's state */
    if (st == CZK_ERR_IO || st == CZK_ERR_FORMAT || st == CZK_ERR_TRUNCATED ||
        st == CZK_ERR_MISMATCH)
        return fail(a, GRPC_STATUS_FAILED_PRECONDITION, "%s", err.msg);
    if (st) return fail(a, code_for(st), "%s", err.msg);
    cuzk__v1__preload_srs_response__init(&k->preload);
    k->preload.already_loaded = already;
    k->preload.load_time_ms = ms;
    a->resp = &k->preload.base;
    return GRPC_STATUS_OK;
}

static grpc_status_code h_evict(srv_call *c, grpc_slice in, answer *a, keep *k) {
    UNPACK(Cuzk__V1__EvictSrsRequest, cuzk__v1__evict_srs_request, r, "EvictSrsRequest");
    char id[CZK_CIRCUIT_ID_MAX + 64];
    snprintf(id, sizeof id, "%s", czk_rpc_str(r->circuit_id));
    protobuf_c_message_free_unpacked(&r->base, NULL);
    bool was = false;
    uint64_t freed = 0;
    czk_err err;
    czk_err_clear(&err);
    czk_status st = czk_engine_evict(c->srv->engine, id, &was, &freed, &err);
    if (st == CZK_ERR_MISMATCH) return fail(a, GRPC_STATUS_FAILED_PRECONDITION, "%s", err.msg);
    if (st) return fail(a, code_for(st), "%s", err.msg);
    cuzk__v1__evict_srs_response__init(&k->evict);
    k->evict.was_loaded = was;
    k->evict.freed_bytes = freed;
    a->resp = &k->evict.base;
    return GRPC_STATUS_OK;
}

typedef grpc_status_code (*handler_fn)(srv_call *c, grpc_slice in, answer *a, keep *k);

static const struct {
    const char *name;
    handler_fn fn;
} HANDLERS[] = {
    {"SubmitProof", h_submit}, {"AwaitProof", h_await}, {"Prove", h_prove},
    {"CancelProof", h_cancel}, {"GetStatus", h_status}, {"GetMetrics", h_metrics},
    {"PreloadSRS", h_preload}, {"EvictSRS", h_evict},
};

/* ---- one call ---- */

static void serve(srv_call *c) {
    czk_rpc_server *s = c->srv;
    grpc_op op[2];
    memset(op, 0, sizeof op);
    op[0].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op[0].data.recv_close_on_server.cancelled = &c->close_cancelled;
    if (grpc_call_start_batch(c->call, op, 1, &c->t_close, NULL) != GRPC_CALL_OK) {
        srv_log(s, "error", "start RECV_CLOSE_ON_SERVER failed");
        return;
    }
    memset(op, 0, sizeof op);
    op[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    op[1].op = GRPC_OP_RECV_MESSAGE;
    op[1].data.recv_message.recv_message = &c->payload;
    bool recv_started = grpc_call_start_batch(c->call, op, 2, &c->t_recv, NULL) == GRPC_CALL_OK;
    if (recv_started) call_wait(c, DONE_RECV);

    answer a;
    memset(&a, 0, sizeof a);
    keep k;
    memset(&k, 0, sizeof k);
    size_t mlen = GRPC_SLICE_LENGTH(c->details.method);
    const char *m = (const char *)GRPC_SLICE_START_PTR(c->details.method);
    size_t plen = strlen(CZK_RPC_SERVICE);
    handler_fn fn = NULL;
    const char *name = "?";
    if (mlen > plen && !memcmp(m, CZK_RPC_SERVICE, plen))
        for (size_t i = 0; i < sizeof HANDLERS / sizeof HANDLERS[0]; i++)
            if (strlen(HANDLERS[i].name) == mlen - plen &&
                !memcmp(m + plen, HANDLERS[i].name, mlen - plen)) {
                fn = HANDLERS[i].fn;
                name = HANDLERS[i].name;
            }
    if (!recv_started || !c->ok_recv) {
        fail(&a, GRPC_STATUS_CANCELLED, "the request was not received");
    } else if (!fn) {
        fail(&a, GRPC_STATUS_UNIMPLEMENTED, "no method %.*s in cuzk.v1.ProvingEngine", (int)mlen,
             m);
    } else if (!c->payload) {
        fail(&a, GRPC_STATUS_INVALID_ARGUMENT, "%s: no request message", name);
    } else {
        grpc_slice in = czk_rpc_bb_take(c->payload);
        c->payload = NULL;
        fn(c, in, &a, &k);
    }
    if (a.code != GRPC_STATUS_OK && a.code != GRPC_STATUS_NOT_FOUND)
        srv_log(s, a.code == GRPC_STATUS_CANCELLED ? "info" : "warn", "%s: %s: %s", name,
                czk_rpc_code_name(a.code), a.msg);

    grpc_byte_buffer *out = NULL;
    grpc_slice details = grpc_slice_from_copied_string(a.msg);
    memset(op, 0, sizeof op);
    int nops = 0;
    if (a.code == GRPC_STATUS_OK && a.resp) {
        out = czk_rpc_bb_pack(a.resp);
        op[nops].op = GRPC_OP_SEND_MESSAGE;
        op[nops].data.send_message.send_message = out;
        nops++;
    }
    op[nops].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    op[nops].data.send_status_from_server.status = a.code;
    op[nops].data.send_status_from_server.status_details = a.code ? &details : NULL;
    nops++;
    bool sent = grpc_call_start_batch(c->call, op, (size_t)nops, &c->t_send, NULL) == GRPC_CALL_OK;
    if (sent) call_wait(c, DONE_SEND);
    keep_free(&k);
    if (out) grpc_byte_buffer_destroy(out);
    grpc_slice_unref(details);
    call_wait(c, DONE_CLOSE);
    (void)sent;
}

static void *worker_main(void *arg) {
    czk_rpc_server *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->queue && !s->stopping_workers)
            pthread_cond_wait(&s->cv, &s->mu);
        if (!s->queue) break;
        srv_call *c = s->queue;
        s->queue = c->next;
        if (!s->queue) s->queue_tail = &s->queue;
        pthread_mutex_unlock(&s->mu);
        serve(c);
        atomic_fetch_add(&s->calls, 1);
        call_free(c);
        pthread_mutex_lock(&s->mu);
        s->active--;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ---- start / stop ---- */

static bool is_unix(const char *addr, const char **path) {
    if (!strncmp(addr, "unix://", 7)) {
        *path = addr + 7; /* unix:///abs -> "/abs"; unix://rel -> "rel" */
        return true;
    }
    if (!strncmp(addr, "unix:", 5)) {
        *path = addr + 5;
        return true;
    }
    return false;
}

/* Before gRPC sees a unix address: the directory exists, the path fits
 * sun_path, and what is at the path is not a socket someone listens on (a
 * second daemon must not take over a live socket); a stale socket (nobody
 * accepts: ECONNREFUSED) is removed. */
static czk_status check_unix(const char *addr, const char *path, czk_err *err) {
    struct sockaddr_un sa;
    if (!*path)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: %s: empty socket path", addr);
    if (strlen(path) >= sizeof sa.sun_path)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "rpc server: %s: socket path is %zu bytes (at most %zu)", addr,
                        strlen(path), sizeof sa.sun_path - 1);
    char dir[sizeof sa.sun_path];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: directory %s %s", addr, dir,
                        errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: %s is not a directory", addr, dir);
    if (lstat(path, &sb) != 0) return CZK_OK; /* nothing there */
    if (!S_ISSOCK(sb.st_mode))
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: %s exists and is not a socket", addr,
                        path);
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: socket: %s", addr, strerror(errno));
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN) /* EAGAIN: someone listens, its backlog is full */
        return czk_errf(err, CZK_ERR_IO,
                        "rpc server: %s: address in use (another process is listening)", addr);
    if (e != ECONNREFUSED)
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: cannot probe the socket: %s", addr,
                        strerror(e));
    if (unlink(path) != 0 && errno != ENOENT) /* stale: nobody listens */
        return czk_errf(err, CZK_ERR_IO, "rpc server: %s: cannot remove the stale socket: %s", addr,
                        strerror(errno));
    return CZK_OK;
}

/* Before gRPC sees a "host:port" address (no scheme): the port is 0..65535,
 * the host resolves, and the address can be bound now (else "address in
 * use"; gRPC's own bind failure says nothing useful). */
static czk_status check_tcp(const char *addr, czk_err *err) {
    static const char *const SCHEMES[] = {"ipv4:", "ipv6:", "dns:", "unix-abstract:", "vsock:"};
    if (strstr(addr, ":/")) return CZK_OK; /* a gRPC URI: gRPC parses it */
    for (size_t i = 0; i < sizeof SCHEMES / sizeof SCHEMES[0]; i++)
        if (!strncmp(addr, SCHEMES[i], strlen(SCHEMES[i]))) return CZK_OK;
    char host[256];
    const char *colon, *port_s;
    if (addr[0] == '[') {
        const char *close_b = strchr(addr, ']');
        if (!close_b || close_b[1] != ':')
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "rpc server: bad address %s (want [host]:port)", addr);
        colon = close_b + 1;
        if ((size_t)(close_b - addr - 1) >= sizeof host) goto bad;
        memcpy(host, addr + 1, (size_t)(close_b - addr - 1));
        host[close_b - addr - 1] = 0;
    } else {
        colon = strrchr(addr, ':');
        if (!colon) goto bad;
        if ((size_t)(colon - addr) >= sizeof host || memchr(addr, ':', (size_t)(colon - addr)))
            goto bad;
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = 0;
    }
    port_s = colon + 1;
    char *end = NULL;
    errno = 0;
    long port = *port_s >= '0' && *port_s <= '9' ? strtol(port_s, &end, 10) : -1;
    if (port < 0 || port > 65535 || errno || !end || *end)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "rpc server: bad address %s: port '%s' (0..65535)", addr, port_s);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(*host ? host : NULL, port_s, &hints, &res);
    if (gai != 0)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: bad address %s: host '%s': %s", addr,
                        host, gai_strerror(gai));
    czk_status st = CZK_OK;
    if (port != 0) {
        for (struct addrinfo *ai = res; ai && !st; ai = ai->ai_next) {
            int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
            if (fd < 0) continue; /* e.g. no IPv6 here: gRPC decides */
            int one = 1;
            (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* as gRPC does */
            if (ai->ai_family == AF_INET6)
                (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno == EADDRINUSE)
                st = czk_errf(err, CZK_ERR_IO, "rpc server: %s: address in use", addr);
            close(fd);
        }
    }
    freeaddrinfo(res);
    return st;
bad:
    return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: bad address %s (want host:port)", addr);
}

czk_status czk_rpc_server_start(czk_rpc_server **out, czk_engine *e,
                                const czk_rpc_server_opts *opts, czk_err *err) {
    *out = NULL;
    if (!opts->num_listen || opts->num_listen > CZK_RPC_MAX_LISTEN)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: %u listen addresses (1..%d)",
                        opts->num_listen, CZK_RPC_MAX_LISTEN);
    for (unsigned i = 0; i < opts->num_listen; i++)
        if (!opts->listen[i] || !*opts->listen[i])
            return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: listen address %u is empty", i);
    if (opts->max_recv_bytes == 0 || opts->max_recv_bytes > INT32_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc server: max receive size %zu (1..2^31-1)",
                        opts->max_recv_bytes);
    czk_rpc_server *s = calloc(1, sizeof *s);
    if (!s) return czk_errf(err, CZK_ERR_NOMEM, "rpc server: out of memory");
    s->engine = e;
    s->opts = *opts;
    if (!s->opts.max_calls) s->opts.max_calls = 64;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->queue_tail = &s->queue;
    s->t_shutdown = (srv_tag){TAG_SHUTDOWN, NULL};
    grpc_init();

    grpc_arg args[3];
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = (int)opts->max_recv_bytes;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = (int)opts->max_recv_bytes;
    /* gRPC sets SO_REUSEPORT by default: a second server would bind the same port */
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
    args[2].value.integer = 0;
    grpc_channel_args cargs = {3, args};
    s->server = grpc_server_create(&cargs, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->server, s->cq, NULL);
    czk_status st = CZK_OK;
    for (unsigned i = 0; i < opts->num_listen && !st; i++) {
        const char *addr = opts->listen[i], *path = NULL;
        bool unix_addr = is_unix(addr, &path);
        if ((st = unix_addr ? check_unix(addr, path, err) : check_tcp(addr, err))) break;
        grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
        int port = grpc_server_add_http2_port(s->server, addr, creds);
        grpc_server_credentials_release(creds);
        if (port <= 0) {
            st = czk_errf(err, CZK_ERR_IO, "rpc server: cannot listen on %s", addr);
            break;
        }
        s->ports[i] = unix_addr ? 0 : port;
        if (unix_addr) {
            snprintf(s->socket_paths[i], sizeof s->socket_paths[i], "%s", path);
            struct stat sb;
            if (lstat(path, &sb) == 0) {
                s->socket_dev[i] = sb.st_dev;
                s->socket_ino[i] = sb.st_ino;
            }
        }
    }
    if (st) {
        grpc_server_destroy(s->server);
        grpc_completion_queue_shutdown(s->cq);
        while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(s->cq);
        grpc_shutdown();
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s);
        return st;
    }
    grpc_server_start(s->server);
    for (unsigned i = 0; i < opts->num_listen && !st; i++)
        if (s->socket_paths[i][0] && chmod(s->socket_paths[i], (mode_t)opts->socket_mode) != 0)
            st = czk_errf(err, CZK_ERR_IO, "rpc server: chmod %o %s: %s", opts->socket_mode,
                          s->socket_paths[i], strerror(errno));
    for (unsigned i = 0; i < REQUESTS_OUTSTANDING; i++)
        request_one(s);
    if (pthread_create(&s->dispatcher, NULL, dispatcher_main, s) != 0) {
        st = st ? st : czk_errf(err, CZK_ERR_NOMEM, "rpc server: cannot start a thread");
    } else {
        s->dispatcher_started = true;
    }
    s->workers = calloc(s->opts.max_calls, sizeof *s->workers);
    if (!s->workers && !st) st = czk_errf(err, CZK_ERR_NOMEM, "rpc server: out of memory");
    for (unsigned i = 0; s->workers && i < s->opts.max_calls && !st; i++) {
        if (pthread_create(&s->workers[i], NULL, worker_main, s) != 0) {
            st = czk_errf(err, CZK_ERR_NOMEM, "rpc server: cannot start worker %u", i);
            break;
        }
        s->num_workers++;
    }
    if (st) {
        czk_rpc_server_destroy(s);
        return st;
    }
    for (unsigned i = 0; i < opts->num_listen; i++)
        srv_log(s, "info", "cuzk.v1.ProvingEngine listening on %s", opts->listen[i]);
    *out = s;
    return CZK_OK;
}

int czk_rpc_server_port(const czk_rpc_server *s, unsigned i) {
    return i < CZK_RPC_MAX_LISTEN ? s->ports[i] : 0;
}

uint64_t czk_rpc_server_calls(const czk_rpc_server *s) {
    return atomic_load(&((czk_rpc_server *)s)->calls);
}

static void timed_wait(czk_rpc_server *s, const struct timespec *until) {
    if (until)
        pthread_cond_timedwait(&s->cv, &s->mu, until);
    else
        pthread_cond_wait(&s->cv, &s->mu);
}

static bool socket_is_ours(const czk_rpc_server *s, unsigned i) {
    struct stat sb;
    return lstat(s->socket_paths[i], &sb) == 0 && sb.st_dev == s->socket_dev[i] &&
           sb.st_ino == s->socket_ino[i];
}

/* A socket file at one of our paths that is not the one we created (someone
 * replaced it): gRPC unlinks the path when its listener stops, so link that
 * file aside now; czk_rpc_server_destroy puts it back. */
static void keep_foreign_sockets(czk_rpc_server *s) {
    for (unsigned i = 0; i < CZK_RPC_MAX_LISTEN; i++) {
        struct stat sb;
        if (!s->socket_paths[i][0] || lstat(s->socket_paths[i], &sb) != 0 || socket_is_ours(s, i))
            continue;
        snprintf(s->socket_keep[i], sizeof s->socket_keep[i], "%s.czk-keep-%ld", s->socket_paths[i],
                 (long)getpid());
        if (link(s->socket_paths[i], s->socket_keep[i]) != 0) s->socket_keep[i][0] = 0;
    }
}

void czk_rpc_server_shutdown(czk_rpc_server *s, int64_t grace_ms) {
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    bool first = !s->shut;
    s->shut = true;
    pthread_mutex_unlock(&s->mu);
    if (first) {
        keep_foreign_sockets(s);
        grpc_server_shutdown_and_notify(s->server, s->cq, &s->t_shutdown);
    }
    struct timespec until = czk_deadline_ms(grace_ms > 0 ? (uint64_t)grace_ms : 0);
    pthread_mutex_lock(&s->mu);
    if (grace_ms != 0) {
        while (s->active) {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (grace_ms > 0 && (now.tv_sec > until.tv_sec ||
                                 (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec)))
                break;
            timed_wait(s, grace_ms > 0 ? &until : NULL);
        }
    }
    bool left = s->active != 0;
    pthread_mutex_unlock(&s->mu);
    if (left) {
        srv_log(s, "info", "shutdown: cancelling the calls still in flight");
        grpc_server_cancel_all_calls(s->server);
    }
    pthread_mutex_lock(&s->mu);
    while (s->active || !s->shutdown_done)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void czk_rpc_server_destroy(czk_rpc_server *s) {
    if (!s) return;
    if (s->dispatcher_started) {
        czk_rpc_server_shutdown(s, 0);
    } else {
        /* no dispatcher: the shutdown tag is never read; stop without it */
        keep_foreign_sockets(s);
        grpc_server_shutdown_and_notify(s->server, s->cq, &s->t_shutdown);
        grpc_server_cancel_all_calls(s->server);
    }
    pthread_mutex_lock(&s->mu);
    s->stopping_workers = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (unsigned i = 0; i < s->num_workers; i++)
        pthread_join(s->workers[i], NULL);
    free(s->workers);
    grpc_server_destroy(s->server);
    grpc_completion_queue_shutdown(s->cq);
    if (s->dispatcher_started) {
        pthread_join(s->dispatcher, NULL);
    } else {
        for (;;) {
            grpc_event ev =
                grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
            srv_tag *t = ev.tag;
            if (ev.type == GRPC_OP_COMPLETE && t->kind == TAG_NEW) call_free(t->call);
        }
    }
    grpc_completion_queue_destroy(s->cq);
    for (unsigned i = 0; i < CZK_RPC_MAX_LISTEN; i++) {
        if (s->socket_paths[i][0] && socket_is_ours(s, i)) unlink(s->socket_paths[i]);
        if (s->socket_keep[i][0] && rename(s->socket_keep[i], s->socket_paths[i]) != 0)
            unlink(s->socket_keep[i]);
    }
    grpc_shutdown();
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

const char *czk_rpc_code_name(int code) {
    static const char *const N[] = {"OK",
                                    "CANCELLED",
                                    "UNKNOWN",
                                    "INVALID_ARGUMENT",
                                    "DEADLINE_EXCEEDED",
                                    "NOT_FOUND",
                                    "ALREADY_EXISTS",
                                    "PERMISSION_DENIED",
                                    "RESOURCE_EXHAUSTED",
                                    "FAILED_PRECONDITION",
                                    "ABORTED",
                                    "OUT_OF_RANGE",
                                    "UNIMPLEMENTED",
                                    "INTERNAL",
                                    "UNAVAILABLE",
                                    "DATA_LOSS",
                                    "UNAUTHENTICATED"};
    return code >= 0 && code < (int)(sizeof N / sizeof N[0]) ? N[code] : "UNKNOWN_CODE";
}
