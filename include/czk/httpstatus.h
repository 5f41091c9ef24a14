/*
 * czk — the HTTP status endpoint of the daemon (daemon.status_listen;
 * cuzk-engine.md §3: a raw HTTP `GET /status` with memory, per-partition
 * pipeline states, workers, SRS and counters), on libmicrohttpd:
 *
 *   GET /status   200, application/json: czk_engine_status_json of a fresh
 *                 snapshot (the last 100 timeline lines);
 *   GET /metrics  200, text/plain; version=0.0.4: czk_engine_metrics, the
 *                 same text as the gRPC GetMetrics;
 *   HEAD          as GET, without the body;
 *   other paths   404; other methods 405 (Allow: GET, HEAD).
 *
 * Requests are answered on the endpoint's own thread; each takes the
 * engine's mutex only while the snapshot is copied. No authentication:
 * bind it to a loopback or otherwise trusted address.
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

#ifdef __cplusplus
}
#endif
#endif
