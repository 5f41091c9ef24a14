/*
 * A C client of cuzk.v1.ProvingEngine on gRPC's core C API: one channel,
 * one completion queue (pluck) per call, one batch per unary call
 * (SEND_INITIAL_METADATA, SEND_MESSAGE, SEND_CLOSE_FROM_CLIENT,
 * RECV_INITIAL_METADATA, RECV_MESSAGE, RECV_STATUS_ON_CLIENT).
 */
#define _GNU_SOURCE
#include "rpc/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gpr_timespec deadline_of(int64_t ms);

struct czk_rpc_client {
    grpc_channel *ch;
    char addr[512];
};

czk_status czk_rpc_client_connect(czk_rpc_client **out, const char *addr, size_t max_msg,
                                  czk_err *err) {
    *out = NULL;
    if (!*addr) return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc client: empty address");
    if (!max_msg) max_msg = CZK_RPC_DEFAULT_MAX_RECV;
    if (max_msg > INT32_MAX)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc client: message limit %zu > 2^31-1",
                        max_msg);
    czk_rpc_client *c = calloc(1, sizeof *c);
    if (!c) return czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
    snprintf(c->addr, sizeof c->addr, "%s", addr);
    grpc_init();
    /* Reconnect soon after a failed connect (gRPC's default waits 1 s, then longer):
     * a daemon that is starting up is reached within 100 ms, at most 5 s. (Not
     * GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: in gRPC core that is the connect timeout.) */
    grpc_arg args[] = {
        {GRPC_ARG_INTEGER, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, {.integer = (int)max_msg}},
        {GRPC_ARG_INTEGER, GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, {.integer = (int)max_msg}},
        {GRPC_ARG_INTEGER, GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, {.integer = 100}},
        {GRPC_ARG_INTEGER, GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, {.integer = 5000}},
    };
    grpc_channel_args cargs = {sizeof args / sizeof args[0], args};
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    c->ch = grpc_channel_create(addr, creds, &cargs);
    grpc_channel_credentials_release(creds);
    if (!c->ch) {
        grpc_shutdown();
        free(c);
        return czk_errf(err, CZK_ERR_INVALID_ARG, "rpc client: cannot make a channel to %s", addr);
    }
    *out = c;
    return CZK_OK;
}

czk_status czk_rpc_client_wait_ready(czk_rpc_client *c, int64_t timeout_ms, czk_err *err) {
    gpr_timespec deadline = deadline_of(timeout_ms);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_connectivity_state st = grpc_channel_check_connectivity_state(c->ch, 1);
    bool timed_out = false;
    while (st != GRPC_CHANNEL_READY && st != GRPC_CHANNEL_SHUTDOWN && !timed_out) {
        int tag = 0;
        /* waiting here polls the channel, so its (re)connects make progress */
        grpc_channel_watch_connectivity_state(c->ch, st, deadline, cq, &tag);
        grpc_event ev =
            grpc_completion_queue_pluck(cq, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        timed_out = !ev.success;
        st = grpc_channel_check_connectivity_state(c->ch, 1);
    }
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    if (st == GRPC_CHANNEL_READY) return CZK_OK;
    return czk_errf(err, CZK_ERR_TIMEOUT, "rpc client: %s not reachable within %lld ms", c->addr,
                    (long long)timeout_ms);
}

void czk_rpc_client_close(czk_rpc_client *c) {
    if (!c) return;
    grpc_channel_destroy(c->ch);
    grpc_shutdown();
    free(c);
}

static czk_status status_for(grpc_status_code code) {
    switch (code) {
    case GRPC_STATUS_OK:
        return CZK_OK;
    case GRPC_STATUS_INVALID_ARGUMENT:
    case GRPC_STATUS_NOT_FOUND:
        return CZK_ERR_INVALID_ARG;
    case GRPC_STATUS_UNIMPLEMENTED:
        return CZK_ERR_UNSUPPORTED;
    case GRPC_STATUS_ALREADY_EXISTS:
    case GRPC_STATUS_FAILED_PRECONDITION:
        return CZK_ERR_MISMATCH;
    case GRPC_STATUS_DEADLINE_EXCEEDED:
        return CZK_ERR_TIMEOUT;
    case GRPC_STATUS_CANCELLED:
        return CZK_ERR_CANCELLED;
    case GRPC_STATUS_UNAVAILABLE:
        return CZK_ERR_IO;
    case GRPC_STATUS_RESOURCE_EXHAUSTED:
        return CZK_ERR_NOMEM;
    default:
        return CZK_ERR_INTERNAL;
    }
}

static gpr_timespec deadline_of(int64_t ms) {
    if (ms < 0) return gpr_inf_future(GPR_CLOCK_REALTIME);
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* One unary call; req NULL = send bb as given. *resp gets the answer's bytes (OK only). */
static czk_status unary(czk_rpc_client *c, const char *method, grpc_byte_buffer *bb,
                        grpc_slice *resp, bool *have_resp, int64_t deadline_ms, int *grpc_code,
                        czk_err *err) {
    *have_resp = false;
    if (grpc_code) *grpc_code = GRPC_STATUS_UNKNOWN;
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_slice m = grpc_slice_from_copied_string(method);
    grpc_call *call = grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, m, NULL,
                                               deadline_of(deadline_ms), NULL);
    grpc_slice_unref(m);
    grpc_metadata_array initial, trailing;
    grpc_metadata_array_init(&initial);
    grpc_metadata_array_init(&trailing);
    grpc_byte_buffer *rbb = NULL;
    grpc_status_code code = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    const char *error_string = NULL;
    grpc_op op[6];
    memset(op, 0, sizeof op);
    op[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    op[1].op = GRPC_OP_SEND_MESSAGE;
    op[1].data.send_message.send_message = bb;
    op[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    op[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    op[3].data.recv_initial_metadata.recv_initial_metadata = &initial;
    op[4].op = GRPC_OP_RECV_MESSAGE;
    op[4].data.recv_message.recv_message = &rbb;
    op[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op[5].data.recv_status_on_client.trailing_metadata = &trailing;
    op[5].data.recv_status_on_client.status = &code;
    op[5].data.recv_status_on_client.status_details = &details;
    op[5].data.recv_status_on_client.error_string = &error_string;
    czk_status st = CZK_OK;
    int tag = 0;
    grpc_call_error ce = grpc_call_start_batch(call, op, 6, &tag, NULL);
    if (ce != GRPC_CALL_OK) {
        st = czk_errf(err, CZK_ERR_INTERNAL, "%s: grpc_call_start_batch error %d", method, (int)ce);
    } else {
        grpc_event ev =
            grpc_completion_queue_pluck(cq, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        (void)ev;
        if (grpc_code) *grpc_code = (int)code;
        if (code != GRPC_STATUS_OK) {
            st = czk_errf(err, status_for(code), "%s: %s: %.*s", method + strlen(CZK_RPC_SERVICE),
                          czk_rpc_code_name((int)code), (int)GRPC_SLICE_LENGTH(details),
                          (const char *)GRPC_SLICE_START_PTR(details));
        } else if (!rbb) {
            st = czk_errf(err, CZK_ERR_FORMAT, "%s: OK without a message", method);
        } else {
            *resp = czk_rpc_bb_take(rbb);
            rbb = NULL;
            *have_resp = true;
        }
    }
    if (rbb) grpc_byte_buffer_destroy(rbb);
    grpc_slice_unref(details);
    gpr_free((void *)error_string);
    grpc_metadata_array_destroy(&initial);
    grpc_metadata_array_destroy(&trailing);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(cq);
    return st;
}

czk_status czk_rpc_call_raw(czk_rpc_client *c, const char *method, const uint8_t *req,
                            size_t req_len, uint8_t **resp, size_t *resp_len, int64_t deadline_ms,
                            int *grpc_code, czk_err *err) {
    *resp = NULL;
    *resp_len = 0;
    grpc_slice s = grpc_slice_malloc(req_len);
    if (req_len) memcpy(GRPC_SLICE_START_PTR(s), req, req_len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    grpc_slice out;
    bool have = false;
    czk_status st = unary(c, method, bb, &out, &have, deadline_ms, grpc_code, err);
    grpc_byte_buffer_destroy(bb);
    if (!have) return st;
    size_t n = GRPC_SLICE_LENGTH(out);
    if (n) {
        *resp = malloc(n);
        if (!*resp) {
            grpc_slice_unref(out);
            return czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
        }
        memcpy(*resp, GRPC_SLICE_START_PTR(out), n);
    }
    *resp_len = n;
    grpc_slice_unref(out);
    return st;
}

/* A typed call: packs req, unpacks the answer with desc into *resp (free_unpacked by the caller).
 */
static czk_status call_msg(czk_rpc_client *c, const char *rpc, const ProtobufCMessage *req,
                           const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp,
                           int64_t deadline_ms, int *grpc_code, czk_err *err) {
    *resp = NULL;
    char method[96];
    snprintf(method, sizeof method, CZK_RPC_SERVICE "%s", rpc);
    grpc_byte_buffer *bb = czk_rpc_bb_pack(req);
    grpc_slice out;
    bool have = false;
    czk_status st = unary(c, method, bb, &out, &have, deadline_ms, grpc_code, err);
    grpc_byte_buffer_destroy(bb);
    if (!have) return st;
    *resp =
        protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(out), GRPC_SLICE_START_PTR(out));
    grpc_slice_unref(out);
    if (!*resp) return czk_errf(err, CZK_ERR_FORMAT, "%s: malformed answer", rpc);
    return CZK_OK;
}

/* ---- typed calls ---- */

static void request_to_proto(Cuzk__V1__SubmitProofRequest *p, const czk_proof_request *r,
                             ProtobufCBinaryData *vps) {
    cuzk__v1__submit_proof_request__init(p);
    p->request_id = (char *)(r->request_id ? r->request_id : "");
    p->proof_kind = (Cuzk__V1__ProofKind)r->kind;
    p->sector_size = r->sector_size;
    p->registered_proof = r->registered_proof;
    p->priority = (Cuzk__V1__Priority)r->priority;
    p->vanilla_proof.data = (uint8_t *)r->vanilla_proof;
    p->vanilla_proof.len = r->vanilla_proof ? r->vanilla_proof_len : 0;
    for (size_t i = 0; i < r->num_vanilla_proofs; i++) {
        vps[i].data = (uint8_t *)r->vanilla_proofs[i];
        vps[i].len = r->vanilla_proofs_len[i];
    }
    p->n_vanilla_proofs = r->num_vanilla_proofs;
    p->vanilla_proofs = vps;
    p->sector_number = r->sector_number;
    p->miner_id = r->miner_id;
    static const uint8_t zero[32];
    /* 32-byte fields: sent only when set (an all-zero value is "unset" in proto3 terms). */
    if (memcmp(r->randomness, zero, 32))
        p->randomness = (ProtobufCBinaryData){32, (uint8_t *)r->randomness};
    p->partition_index = r->partition_index;
    if (memcmp(r->comm_r_old, zero, 32))
        p->comm_r_old = (ProtobufCBinaryData){32, (uint8_t *)r->comm_r_old};
    if (memcmp(r->comm_r_new, zero, 32))
        p->comm_r_new = (ProtobufCBinaryData){32, (uint8_t *)r->comm_r_new};
    if (memcmp(r->comm_d_new, zero, 32))
        p->comm_d_new = (ProtobufCBinaryData){32, (uint8_t *)r->comm_d_new};
}

static czk_status result_from_proto(czk_job_result *out, const Cuzk__V1__AwaitProofResponse *p,
                                    czk_err *err) {
    snprintf(out->job_id, sizeof out->job_id, "%s", czk_rpc_str(p->job_id));
    switch (p->status) {
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED:
        out->state = CZK_JOB_COMPLETED;
        break;
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED:
        out->state = CZK_JOB_FAILED;
        out->error_code = CZK_ERR_INTERNAL; /* the wire carries only the message */
        break;
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED:
        out->state = CZK_JOB_CANCELLED;
        break;
    case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT:
        out->state = CZK_JOB_TIMEOUT;
        break;
    default:
        out->state = CZK_JOB_UNKNOWN;
        break;
    }
    snprintf(out->error, sizeof out->error, "%s", czk_rpc_str(p->error_message));
    if (p->proof.len) {
        out->proof = malloc(p->proof.len);
        if (!out->proof) return czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
        memcpy(out->proof, p->proof.data, p->proof.len);
        out->proof_len = p->proof.len;
    }
    out->queue_wait_ms = p->queue_wait_ms;
    out->srs_load_ms = p->srs_load_ms;
    out->synthesis_ms = p->synthesis_ms;
    out->gpu_compute_ms = p->gpu_compute_ms;
    out->total_ms = p->total_ms;
    return CZK_OK;
}

static czk_status request_check(const czk_proof_request *req, ProtobufCBinaryData **vps,
                                czk_err *err) {
    *vps = NULL;
    if (req->num_vanilla_proofs && !(*vps = calloc(req->num_vanilla_proofs, sizeof **vps)))
        return czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
    return CZK_OK;
}

czk_status czk_rpc_submit(czk_rpc_client *c, const czk_proof_request *req,
                          char job_id[CZK_JOB_ID_MAX], uint32_t *queue_position,
                          int64_t deadline_ms, int *grpc_code, czk_err *err) {
    job_id[0] = 0;
    ProtobufCBinaryData *vps;
    czk_status st = request_check(req, &vps, err);
    if (st) return st;
    Cuzk__V1__SubmitProofRequest p;
    request_to_proto(&p, req, vps);
    ProtobufCMessage *m;
    st = call_msg(c, "SubmitProof", &p.base, &cuzk__v1__submit_proof_response__descriptor, &m,
                  deadline_ms, grpc_code, err);
    free(vps);
    if (st) return st;
    Cuzk__V1__SubmitProofResponse *r = (Cuzk__V1__SubmitProofResponse *)m;
    snprintf(job_id, CZK_JOB_ID_MAX, "%s", czk_rpc_str(r->job_id));
    if (queue_position) *queue_position = r->queue_position;
    protobuf_c_message_free_unpacked(m, NULL);
    return CZK_OK;
}

czk_status czk_rpc_await(czk_rpc_client *c, const char *job_id, uint64_t timeout_ms,
                         int64_t deadline_ms, czk_job_result *out, int *grpc_code, czk_err *err) {
    memset(out, 0, sizeof *out);
    Cuzk__V1__AwaitProofRequest p;
    cuzk__v1__await_proof_request__init(&p);
    p.job_id = (char *)job_id;
    p.timeout_ms = timeout_ms;
    ProtobufCMessage *m;
    czk_status st = call_msg(c, "AwaitProof", &p.base, &cuzk__v1__await_proof_response__descriptor,
                             &m, deadline_ms, grpc_code, err);
    if (st) return st;
    st = result_from_proto(out, (Cuzk__V1__AwaitProofResponse *)m, err);
    protobuf_c_message_free_unpacked(m, NULL);
    return st;
}

czk_status czk_rpc_prove(czk_rpc_client *c, const czk_proof_request *req, int64_t deadline_ms,
                         czk_job_result *out, int *grpc_code, czk_err *err) {
    memset(out, 0, sizeof *out);
    ProtobufCBinaryData *vps;
    czk_status st = request_check(req, &vps, err);
    if (st) return st;
    Cuzk__V1__SubmitProofRequest sp;
    request_to_proto(&sp, req, vps);
    Cuzk__V1__ProveRequest p;
    cuzk__v1__prove_request__init(&p);
    p.submit = &sp;
    ProtobufCMessage *m;
    st = call_msg(c, "Prove", &p.base, &cuzk__v1__prove_response__descriptor, &m, deadline_ms,
                  grpc_code, err);
    free(vps);
    if (st) return st;
    Cuzk__V1__ProveResponse *r = (Cuzk__V1__ProveResponse *)m;
    if (!r->result)
        st = czk_errf(err, CZK_ERR_FORMAT, "Prove: answer without a result");
    else
        st = result_from_proto(out, r->result, err);
    protobuf_c_message_free_unpacked(m, NULL);
    return st;
}

czk_status czk_rpc_cancel(czk_rpc_client *c, const char *job_id, bool *was_running,
                          int64_t deadline_ms, int *grpc_code, czk_err *err) {
    if (was_running) *was_running = false;
    Cuzk__V1__CancelProofRequest p;
    cuzk__v1__cancel_proof_request__init(&p);
    p.job_id = (char *)job_id;
    ProtobufCMessage *m;
    czk_status st =
        call_msg(c, "CancelProof", &p.base, &cuzk__v1__cancel_proof_response__descriptor, &m,
                 deadline_ms, grpc_code, err);
    if (st) return st;
    if (was_running) *was_running = ((Cuzk__V1__CancelProofResponse *)m)->was_running;
    protobuf_c_message_free_unpacked(m, NULL);
    return CZK_OK;
}

void czk_rpc_status_free(czk_rpc_status *s) {
    if (!s) return;
    free(s->gpus);
    free(s->loaded_srs);
    free(s->queues);
    free(s->jobs);
    free(s);
}

czk_status czk_rpc_get_status(czk_rpc_client *c, czk_rpc_status **out, int64_t deadline_ms,
                              int *grpc_code, czk_err *err) {
    *out = NULL;
    Cuzk__V1__GetStatusRequest p;
    cuzk__v1__get_status_request__init(&p);
    ProtobufCMessage *m;
    czk_status st = call_msg(c, "GetStatus", &p.base, &cuzk__v1__get_status_response__descriptor,
                             &m, deadline_ms, grpc_code, err);
    if (st) return st;
    Cuzk__V1__GetStatusResponse *r = (Cuzk__V1__GetStatusResponse *)m;
    czk_rpc_status *s = calloc(1, sizeof *s);
    if (s) {
        s->gpus = calloc(r->n_gpus + 1, sizeof *s->gpus);
        s->loaded_srs = calloc(r->n_loaded_srs + 1, sizeof *s->loaded_srs);
        s->queues = calloc(r->n_queues + 1, sizeof *s->queues);
        s->jobs = calloc(r->n_jobs + 1, sizeof *s->jobs);
    }
    if (!s || !s->gpus || !s->loaded_srs || !s->queues || !s->jobs) {
        czk_rpc_status_free(s);
        protobuf_c_message_free_unpacked(m, NULL);
        return czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
    }
    for (size_t i = 0; i < r->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = r->gpus[i];
        czk_rpc_gpu_status *d = &s->gpus[i];
        d->ordinal = g->ordinal;
        snprintf(d->name, sizeof d->name, "%s", czk_rpc_str(g->name));
        d->vram_total_bytes = g->vram_total_bytes;
        d->vram_free_bytes = g->vram_free_bytes;
        snprintf(d->current_job_id, sizeof d->current_job_id, "%s", czk_rpc_str(g->current_job_id));
        snprintf(d->current_proof_kind, sizeof d->current_proof_kind, "%s",
                 czk_rpc_str(g->current_proof_kind));
        d->index = g->index;
        snprintf(d->uuid, sizeof d->uuid, "%s", czk_rpc_str(g->uuid));
        snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", czk_rpc_str(g->pci_bus_id));
        snprintf(d->backend, sizeof d->backend, "%s", czk_rpc_str(g->backend));
        d->cpu_pseudo_device = g->cpu_pseudo_device;
        d->failed = g->failed;
        snprintf(d->error, sizeof d->error, "%s", czk_rpc_str(g->error));
        d->partitions_proved = g->partitions_proved;
        d->partitions_requeued = g->partitions_requeued;
        d->busy_ms = g->busy_ms;
    }
    s->num_gpus = r->n_gpus;
    for (size_t i = 0; i < r->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *x = r->loaded_srs[i];
        czk_rpc_srs_status *d = &s->loaded_srs[i];
        snprintf(d->circuit_id, sizeof d->circuit_id, "%s", czk_rpc_str(x->circuit_id));
        d->tier = (czk_srs_tier)x->tier;
        d->size_bytes = x->size_bytes;
        d->ref_count = x->ref_count;
    }
    s->num_srs = r->n_loaded_srs;
    for (size_t i = 0; i < r->n_queues; i++) {
        const Cuzk__V1__QueueStatus *q = r->queues[i];
        czk_rpc_queue_status *d = &s->queues[i];
        snprintf(d->proof_kind, sizeof d->proof_kind, "%s", czk_rpc_str(q->proof_kind));
        d->pending = q->pending;
        d->in_progress = q->in_progress;
    }
    s->num_queues = r->n_queues;
    for (size_t i = 0; i < r->n_jobs; i++) {
        const Cuzk__V1__JobStatus *j = r->jobs[i];
        czk_rpc_job_status *d = &s->jobs[i];
        snprintf(d->job_id, sizeof d->job_id, "%s", czk_rpc_str(j->job_id));
        snprintf(d->proof_kind, sizeof d->proof_kind, "%s", czk_rpc_str(j->proof_kind));
        d->state = (czk_job_state)j->state; /* JobStatus.State has czk_job_state's numbers */
        d->partitions = j->partitions;
        d->finalized = j->partitions_finalized;
        d->in_flight = j->partitions_in_flight;
        d->age_ms = j->age_ms;
    }
    s->num_jobs = r->n_jobs;
    s->total_proofs_completed = r->total_proofs_completed;
    s->total_proofs_failed = r->total_proofs_failed;
    s->uptime_seconds = r->uptime_seconds;
    s->pinned_memory_bytes = r->pinned_memory_bytes;
    s->pinned_memory_limit_bytes = r->pinned_memory_limit_bytes;
    protobuf_c_message_free_unpacked(m, NULL);
    *out = s;
    return CZK_OK;
}

czk_status czk_rpc_get_metrics(czk_rpc_client *c, char **text, int64_t deadline_ms, int *grpc_code,
                               czk_err *err) {
    *text = NULL;
    Cuzk__V1__GetMetricsRequest p;
    cuzk__v1__get_metrics_request__init(&p);
    ProtobufCMessage *m;
    czk_status st = call_msg(c, "GetMetrics", &p.base, &cuzk__v1__get_metrics_response__descriptor,
                             &m, deadline_ms, grpc_code, err);
    if (st) return st;
    *text = strdup(czk_rpc_str(((Cuzk__V1__GetMetricsResponse *)m)->prometheus_text));
    protobuf_c_message_free_unpacked(m, NULL);
    return *text ? CZK_OK : czk_errf(err, CZK_ERR_NOMEM, "rpc client: out of memory");
}

czk_status czk_rpc_preload(czk_rpc_client *c, const char *circuit_id, bool *already_loaded,
                           uint64_t *load_ms, int64_t deadline_ms, int *grpc_code, czk_err *err) {
    Cuzk__V1__PreloadSrsRequest p;
    cuzk__v1__preload_srs_request__init(&p);
    p.circuit_id = (char *)circuit_id;
    ProtobufCMessage *m;
    czk_status st = call_msg(c, "PreloadSRS", &p.base, &cuzk__v1__preload_srs_response__descriptor,
                             &m, deadline_ms, grpc_code, err);
    if (st) return st;
    Cuzk__V1__PreloadSrsResponse *r = (Cuzk__V1__PreloadSrsResponse *)m;
    if (already_loaded) *already_loaded = r->already_loaded;
    if (load_ms) *load_ms = r->load_time_ms;
    protobuf_c_message_free_unpacked(m, NULL);
    return CZK_OK;
}

czk_status czk_rpc_evict(czk_rpc_client *c, const char *circuit_id, bool *was_loaded,
                         uint64_t *freed_bytes, int64_t deadline_ms, int *grpc_code, czk_err *err) {
    Cuzk__V1__EvictSrsRequest p;
    cuzk__v1__evict_srs_request__init(&p);
    p.circuit_id = (char *)circuit_id;
    ProtobufCMessage *m;
    czk_status st = call_msg(c, "EvictSRS", &p.base, &cuzk__v1__evict_srs_response__descriptor, &m,
                             deadline_ms, grpc_code, err);
    if (st) return st;
    Cuzk__V1__EvictSrsResponse *r = (Cuzk__V1__EvictSrsResponse *)m;
    if (was_loaded) *was_loaded = r->was_loaded;
    if (freed_bytes) *freed_bytes = r->freed_bytes;
    protobuf_c_message_free_unpacked(m, NULL);
    return CZK_OK;
}
