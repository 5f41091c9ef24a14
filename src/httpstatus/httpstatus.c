/*
 * The HTTP status endpoint (include/czk/httpstatus.h) on libmicrohttpd.
 *
 * czk binds the listening socket itself (so a bad or busy address is a
 * precise error, and port 0 works), then hands it to a libmicrohttpd daemon
 * with its own polling thread. Every answer is made from a fresh engine
 * snapshot: JSON by czk_status_page_json, Prometheus text by
 * czk_metrics_format (metrics.c, status_json.c). Built without libmicrohttpd (CZK_HTTP=OFF),
 * start answers CZK_ERR_UNSUPPORTED.
 */
#include "czk/httpstatus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CZK_HAVE_HTTP

#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define STATUS_TIMELINE_LINES 100

struct czk_httpstatus {
    czk_engine *e;
    struct MHD_Daemon *d;
    uint16_t port;
};

bool czk_httpstatus_available(void) {
    return true;
}

/* Queues a response of a malloc'ed or static body. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, char *body,
                             size_t len, bool owned) {
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned) free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned code, const char *msg) {
    return reply(c, code, "text/plain; charset=utf-8", (char *)msg, strlen(msg), false);
}

/* A 500 naming what failed. */
static enum MHD_Result reply_error(struct MHD_Connection *c, const czk_err *err) {
    size_t cap = strlen(err->msg) + 16;
    char *m = malloc(cap);
    if (!m) return MHD_NO;
    snprintf(m, cap, "czk status: %s\n", err->msg);
    return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", m, strlen(m),
                 true);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
    (void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
    czk_httpstatus *h = cls;
    bool get = !strcmp(method, MHD_HTTP_METHOD_GET), head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
    bool is_status = !strcmp(url, "/status"), is_metrics = !strcmp(url, "/metrics");
    if (!is_status && !is_metrics)
        return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: the paths are /status and /metrics\n");
    if (!get && !head)
        return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: GET or HEAD\n");
    czk_err err;
    czk_err_clear(&err);
    czk_engine_status *s;
    if (czk_engine_status_get(h->e, &s, &err)) return reply_error(c, &err);
    char *body = NULL;
    size_t len = 0;
    czk_status st;
    if (is_status) {
        st = czk_status_page_json(s, STATUS_TIMELINE_LINES, &body, &len, &err);
    } else {
        st = czk_metrics_format(s, &body, &err);
        if (!st) len = strlen(body);
    }
    czk_engine_status_free(s);
    if (st) return reply_error(c, &err);
    return reply(c, MHD_HTTP_OK,
                 is_status ? "application/json" : "text/plain; version=0.0.4; charset=utf-8", body,
                 len, true);
}

/* Splits "host:port" / "[v6]:port" into host (may be empty) and port. */
static czk_status split_addr(const char *addr, char *host, size_t host_cap, char *port,
                             size_t port_cap, czk_err *err) {
    const char *colon;
    size_t hl;
    const char *hs = addr;
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':')
            return czk_errf(err, CZK_ERR_INVALID_ARG, "status_listen \"%s\": expected [ipv6]:port",
                            addr);
        hs = addr + 1;
        hl = (size_t)(close - hs);
        colon = close + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon)
            return czk_errf(err, CZK_ERR_INVALID_ARG, "status_listen \"%s\": expected host:port",
                            addr);
        hl = (size_t)(colon - addr);
        if (memchr(addr, ':', hl))
            return czk_errf(err, CZK_ERR_INVALID_ARG,
                            "status_listen \"%s\": an IPv6 address goes in brackets", addr);
    }
    const char *ps = colon + 1;
    size_t pl = strlen(ps);
    if (!pl || pl > 5 || strspn(ps, "0123456789") != pl || atoi(ps) > 65535)
        return czk_errf(err, CZK_ERR_INVALID_ARG,
                        "status_listen \"%s\": the port must be a number 0..65535", addr);
    if (hl >= host_cap || pl >= port_cap)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "status_listen \"%s\": too long", addr);
    memcpy(host, hs, hl);
    host[hl] = 0;
    memcpy(port, ps, pl + 1);
    return CZK_OK;
}

/* A listening TCP socket on addr. */
static czk_status listen_on(const char *addr, int *fd_out, uint16_t *port_out, czk_err *err) {
    char host[256], port[8];
    czk_status st = split_addr(addr, host, sizeof host, port, sizeof port, err);
    if (st) return st;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (gai || !res)
        return czk_errf(err, CZK_ERR_INVALID_ARG, "status_listen \"%s\": host %s: %s", addr,
                        host[0] ? host : "(any)", gai ? gai_strerror(gai) : "no address");
    int fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
    if (fd < 0) {
        int e = errno;
        freeaddrinfo(res);
        return czk_errf(err, CZK_ERR_IO, "status_listen \"%s\": socket: %s", addr, strerror(e));
    }
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64)) {
        int e = errno;
        freeaddrinfo(res);
        close(fd);
        return czk_errf(err, CZK_ERR_IO, "status_listen \"%s\": %s", addr, strerror(e));
    }
    freeaddrinfo(res);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    uint16_t p = 0;
    if (!getsockname(fd, (struct sockaddr *)&ss, &sl)) {
        if (ss.ss_family == AF_INET)
            p = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            p = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    *fd_out = fd;
    *port_out = p;
    return CZK_OK;
}

czk_status czk_httpstatus_start(czk_engine *e, const char *addr, czk_httpstatus **out,
                                czk_err *err) {
    *out = NULL;
    czk_httpstatus *h = calloc(1, sizeof *h);
    if (!h) return czk_errf(err, CZK_ERR_NOMEM, "status_listen: out of memory");
    h->e = e;
    int fd = -1;
    czk_status st = listen_on(addr, &fd, &h->port, err);
    if (st) {
        free(h);
        return st;
    }
    h->d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle,
                            h, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64, MHD_OPTION_END);
    if (!h->d) {
        close(fd);
        free(h);
        return czk_errf(err, CZK_ERR_IO, "status_listen \"%s\": libmicrohttpd did not start", addr);
    }
    *out = h;
    return CZK_OK;
}

uint16_t czk_httpstatus_port(const czk_httpstatus *h) {
    return h->port;
}

void czk_httpstatus_stop(czk_httpstatus *h) {
    if (!h) return;
    MHD_stop_daemon(h->d); /* closes the listening socket too */
    free(h);
}

#else /* built without libmicrohttpd */

struct czk_httpstatus {
    int unused;
};

bool czk_httpstatus_available(void) {
    return false;
}

czk_status czk_httpstatus_start(czk_engine *e, const char *addr, czk_httpstatus **out,
                                czk_err *err) {
    (void)e;
    *out = NULL;
    return czk_errf(err, CZK_ERR_UNSUPPORTED,
                    "status_listen \"%s\": this czk was built without the HTTP endpoint "
                    "(cmake -DCZK_HTTP=ON needs libmicrohttpd)",
                    addr);
}

uint16_t czk_httpstatus_port(const czk_httpstatus *h) {
    (void)h;
    return 0;
}

void czk_httpstatus_stop(czk_httpstatus *h) {
    (void)h;
}

#endif
