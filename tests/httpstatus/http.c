/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * The HTTP status endpoint over a real TCP socket: requests are written by
 * hand (HTTP/1.0, so the server closes the connection after the response)
 * and the responses read back and split into status line, headers and body.
 * GET /status must be JSON that yajl's tree parser accepts, with the
 * counters of the proofs the test ran, the configured budget, one entry per
 * worker, the SRS with its tier, and, while a job runs, its partitions;
 * GET /metrics the engine's Prometheus text; other paths 404; POST and
 * DELETE 405 with an Allow header; the endpoint keeps serving after them.
 * Bad addresses are refused with the status the header documents.
 */
#include "../engine/etest.h"

#include "czk/httpstatus.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <yajl/yajl_tree.h>

typedef struct http_resp {
    int code;
    char *head; /* status line and headers */
    char *body;
    size_t body_len;
} http_resp;

static void resp_free(http_resp *r) {
    free(r->head);
    free(r->body);
}

/* Sends request text to 127.0.0.1:port and reads the whole response. */
static http_resp http_raw(uint16_t port, const char *req) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    size_t n = strlen(req);
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, req + off, n - off);
        assert_true(w > 0);
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 4096 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t r = read(fd, buf + len, cap - len - 1);
        assert_true(r >= 0);
        if (!r) break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = 0;
    http_resp out;
    memset(&out, 0, sizeof out);
    char *sep = strstr(buf, "\r\n\r\n");
    assert_non_null(sep);
    size_t hl = (size_t)(sep - buf);
    out.head = strndup(buf, hl);
    out.body_len = len - hl - 4;
    out.body = malloc(out.body_len + 1);
    memcpy(out.body, sep + 4, out.body_len);
    out.body[out.body_len] = 0;
    assert_int_equal(sscanf(buf, "HTTP/1.%*d %d", &out.code), 1);
    free(buf);
    return out;
}

static http_resp http_req(uint16_t port, const char *method, const char *path) {
    char req[512];
    snprintf(req, sizeof req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", method, path);
    return http_raw(port, req);
}

/* A header's value (case-insensitive name), or NULL. */
static const char *header(const http_resp *r, const char *name, char *out, size_t cap) {
    const char *p = r->head;
    size_t nl = strlen(name);
    while ((p = strstr(p, "\r\n"))) {
        p += 2;
        if (!strncasecmp(p, name, nl) && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t l = strcspn(v, "\r\n");
            snprintf(out, cap, "%.*s", (int)l, v);
            return out;
        }
    }
    return NULL;
}

static yajl_val jget(yajl_val v, const char *a, const char *b) {
    const char *path[3] = {a, b, NULL};
    return yajl_tree_get(v, path, yajl_t_any);
}

static uint64_t ju(yajl_val v, const char *a, const char *b) {
    yajl_val x = jget(v, a, b);
    if (!x || !YAJL_IS_INTEGER(x)) fail_msg("JSON %s.%s is not an integer", a, b ? b : "");
    return (uint64_t)YAJL_GET_INTEGER(x);
}

static const char *jstr(yajl_val v, const char *a) {
    yajl_val x = a ? jget(v, a, NULL) : v;
    const char *str = x && YAJL_IS_STRING(x) ? YAJL_GET_STRING(x) : NULL;
    if (!str) {
        fail_msg("JSON %s is not a string", a ? a : "value");
        return "";
    }
    return str;
}

static yajl_val parse_json(const http_resp *r) {
    char e[256];
    yajl_val v = yajl_tree_parse(r->body, e, sizeof e);
    if (!v) fail_msg("GET /status: not JSON: %s", e);
    assert_true(YAJL_IS_OBJECT(v));
    return v;
}

/* Sample lines of a metrics text ("name{labels}"), values dropped, in order. */
static char *sample_keys(const char *text) {
    size_t cap = strlen(text) + 1;
    char *out = malloc(cap), *o = out;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        if (l[0] != '#') {
            const char *sp = memchr(l, ' ', len);
            size_t k = sp ? (size_t)(sp - l) : len;
            /* the label text may hold a space inside quotes: take up to the last space */
            for (const char *q = l + len; q > l; q--)
                if (q[-1] == ' ') {
                    k = (size_t)(q - 1 - l);
                    break;
                }
            memcpy(o, l, k);
            o += k;
            *o++ = '\n';
        }
        l += len + (nl ? 1 : 0);
    }
    *o = 0;
    return out;
}

static void test_endpoint(void **state) {
    (void)state;
    if (!czk_httpstatus_available()) skip(); /* built with CZK_HTTP=OFF: test_unavailable */
    czk_engine_opts o;
    et_opts(&o, NULL, 40);
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_httpstatus *h;
    czk_assert_ok(czk_httpstatus_start(e, "127.0.0.1:0", &h, &err), &err);
    uint16_t port = czk_httpstatus_port(h);
    assert_true(port > 0);

    /* idle */
    http_resp r = http_req(port, "GET", "/status");
    assert_int_equal(r.code, 200);
    char hv[128];
    assert_non_null(header(&r, "Content-Type", hv, sizeof hv));
    assert_string_equal(hv, "application/json");
    yajl_val v = parse_json(&r);
    assert_int_equal(ju(v, "memory", "budget_total_bytes"), 1ull << 30);
    assert_int_equal(ju(v, "counters", "proofs_completed"), 0);
    yajl_val workers = jget(v, "workers", NULL);
    assert_true(YAJL_IS_ARRAY(workers));
    assert_int_equal(YAJL_GET_ARRAY(workers)->len, 6); /* 2 synthesis, 2 GPU, 2 finalize */
    yajl_val gpus = jget(v, "gpus", NULL);
    assert_int_equal(YAJL_GET_ARRAY(gpus)->len, 1);
    yajl_val g0 = YAJL_GET_ARRAY(gpus)->values[0];
    assert_int_equal(ju(g0, "ordinal", NULL), (uint64_t)-1);
    assert_int_equal(ju(g0, "index", NULL), 0);
    assert_string_equal(YAJL_GET_STRING(jget(g0, "device_name", NULL)), "cpu pseudo-device 0");
    assert_string_equal(YAJL_GET_STRING(jget(g0, "uuid", NULL)), "");
    assert_true(YAJL_IS_TRUE(jget(g0, "cpu_pseudo_device", NULL)));
    assert_true(YAJL_IS_FALSE(jget(g0, "failed", NULL)));
    assert_true(YAJL_IS_NULL(jget(g0, "vram_total_bytes", NULL))); /* the CPU reports none */
    yajl_tree_free(v);
    resp_free(&r);

    /* a job in flight: its partitions are listed */
    char id[CZK_JOB_ID_MAX];
    et_submit(e, id, "http-job", CZK_PRIORITY_UNSPECIFIED,
              "seed=7 partitions=3 log=7 synth_ms=300");
    bool saw = false;
    for (int i = 0; i < 100 && !saw; i++) {
        r = http_req(port, "GET", "/status");
        assert_int_equal(r.code, 200);
        v = parse_json(&r);
        yajl_val parts = jget(v, "partitions", NULL);
        assert_true(YAJL_IS_ARRAY(parts));
        size_t n = YAJL_GET_ARRAY(parts)->len;
        for (size_t k = 0; k < n; k++) {
            yajl_val p = YAJL_GET_ARRAY(parts)->values[k];
            yajl_val jid = jget(p, "job_id", NULL), st = jget(p, "stage", NULL);
            assert_true(YAJL_IS_STRING(jid) && YAJL_IS_STRING(st));
            assert_string_equal(YAJL_GET_STRING(jid), "http-job");
            assert_int_equal(ju(p, "partitions", NULL), 3);
        }
        yajl_val queues = jget(v, "queues", NULL);
        if (n == 3) {
            assert_int_equal(YAJL_GET_ARRAY(queues)->len, 1);
            yajl_val q = YAJL_GET_ARRAY(queues)->values[0];
            assert_string_equal(jstr(q, "proof_kind"), "test");
            assert_int_equal(ju(q, "pending", NULL) + ju(q, "in_progress", NULL), 3);
            saw = true;
        }
        yajl_tree_free(v);
        resp_free(&r);
        if (!saw) usleep(20000);
    }
    assert_true(saw);
    czk_job_result jr = et_await(e, id);
    assert_int_equal(jr.state, CZK_JOB_COMPLETED);
    czk_job_result_free(&jr);
    czk_engine_status_free(et_wait_idle(e));

    /* after it: counters, SRS and its tier */
    r = http_req(port, "GET", "/status");
    v = parse_json(&r);
    assert_int_equal(ju(v, "counters", "proofs_completed"), 1);
    assert_int_equal(ju(v, "counters", "proofs_failed"), 0);
    assert_int_equal(ju(v, "counters", "proofs_refused"), 0);
    assert_int_equal(YAJL_GET_ARRAY(jget(v, "partitions", NULL))->len, 0);
    yajl_val srs = jget(v, "srs", NULL);
    assert_int_equal(YAJL_GET_ARRAY(srs)->len, 1);
    yajl_val s0 = YAJL_GET_ARRAY(srs)->values[0];
    assert_string_equal(jstr(s0, "circuit_id"), "test-7");
    assert_string_equal(jstr(s0, "tier"), "WARM");
    assert_true(ju(s0, "size_bytes", NULL) > 0);
    yajl_val bk = jget(jget(v, "counters", NULL), "by_kind", NULL);
    assert_true(YAJL_IS_ARRAY(bk));
    bool found = false;
    for (size_t k = 0; k < YAJL_GET_ARRAY(bk)->len; k++) {
        yajl_val c = YAJL_GET_ARRAY(bk)->values[k];
        if (strcmp(jstr(c, "proof_kind"), "test")) continue;
        found = true;
        assert_int_equal(ju(c, "completed", NULL), 1);
    }
    assert_true(found);
    yajl_val tl = jget(v, "timeline", NULL);
    assert_true(YAJL_IS_ARRAY(tl) && YAJL_GET_ARRAY(tl)->len > 0);
    assert_int_equal(strncmp(jstr(YAJL_GET_ARRAY(tl)->values[0], NULL), "TIMELINE,", 9), 0);
    yajl_tree_free(v);
    resp_free(&r);

    /* /metrics: the engine's text (same samples in the same order; values of gauges such as
     * uptime may move between the two reads) */
    r = http_req(port, "GET", "/metrics");
    assert_int_equal(r.code, 200);
    assert_non_null(header(&r, "Content-Type", hv, sizeof hv));
    assert_non_null(strstr(hv, "text/plain"));
    assert_non_null(strstr(hv, "version=0.0.4"));
    char *m;
    czk_assert_ok(czk_metrics_text(e, &m, &err), &err);
    char *k1 = sample_keys(r.body), *k2 = sample_keys(m);
    assert_string_equal(k1, k2);
    free(k1), free(k2), free(m);
    assert_non_null(strstr(r.body, "\ncuzk_proofs_completed_total 1\n"));
    assert_non_null(strstr(r.body, "\nczk_proof_duration_seconds_count{proof_kind=\"test\"} 1\n"));
    resp_free(&r);

    /* HEAD: headers, no body */
    r = http_req(port, "HEAD", "/metrics");
    assert_int_equal(r.code, 200);
    assert_int_equal(r.body_len, 0);
    resp_free(&r);

    /* other paths and methods */
    static const char *const paths[] = {"/", "/status/", "/metricsx", "/Status"};
    for (int i = 0; i < 4; i++) {
        r = http_req(port, "GET", paths[i]);
        assert_int_equal(r.code, 404);
        resp_free(&r);
    }
    r = http_raw(port, "POST /status HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello");
    assert_int_equal(r.code, 405);
    assert_non_null(header(&r, "Allow", hv, sizeof hv));
    assert_string_equal(hv, "GET, HEAD");
    resp_free(&r);
    r = http_req(port, "DELETE", "/metrics");
    assert_int_equal(r.code, 405);
    resp_free(&r);
    /* garbage is answered (400) or dropped, and the endpoint keeps serving */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_true(write(fd, "\x01\x02garbage\r\n\r\n", 13) == 13);
    close(fd);
    r = http_req(port, "GET", "/status");
    assert_int_equal(r.code, 200);
    resp_free(&r);

    czk_httpstatus_stop(h);
    czk_engine_destroy(e);
}

static void test_addresses(void **state) {
    (void)state;
    if (!czk_httpstatus_available()) skip();
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_httpstatus *h = (czk_httpstatus *)1;
    static const char *const bad[] = {
        "",       "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:80a",
        "::1:80", "[::1]80",   "[::1",       "127.0.0.1:-1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(czk_httpstatus_start(e, bad[i], &h, &err), CZK_ERR_INVALID_ARG);
        assert_null(h);
        assert_non_null(strstr(err.msg, "status_listen"));
    }
    /* a port in use: IO, naming the reason */
    czk_httpstatus *h1;
    czk_assert_ok(czk_httpstatus_start(e, "127.0.0.1:0", &h1, &err), &err);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", czk_httpstatus_port(h1));
    assert_int_equal(czk_httpstatus_start(e, addr, &h, &err), CZK_ERR_IO);
    assert_non_null(strstr(err.msg, "in use"));
    czk_httpstatus_stop(h1);
    /* after stop the port is free again */
    czk_assert_ok(czk_httpstatus_start(e, addr, &h1, &err), &err);
    http_resp r = http_req(czk_httpstatus_port(h1), "GET", "/metrics");
    assert_int_equal(r.code, 200);
    resp_free(&r);
    czk_httpstatus_stop(h1);
    czk_httpstatus_stop(NULL);
    czk_engine_destroy(e);
}

/* Built without libmicrohttpd: start says so. */
static void test_unavailable(void **state) {
    (void)state;
    if (czk_httpstatus_available()) skip();
    czk_engine_opts o;
    et_opts(&o, NULL, 0);
    czk_engine *e = et_start(&o);
    czk_err err;
    czk_httpstatus *h;
    assert_int_equal(czk_httpstatus_start(e, "127.0.0.1:0", &h, &err), CZK_ERR_UNSUPPORTED);
    assert_null(h);
    czk_engine_destroy(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint),
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_unavailable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
