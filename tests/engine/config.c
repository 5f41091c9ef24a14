/* CZK_TEST_LABELS: unit */
/*
 * The engine's TOML configuration: cuzk's size and duration syntax (values
 * from cuzk's own config.rs tests: "50GiB", "140GiB", "626MiB"; "5m",
 * "300s", "10m", "60"), every key's type, the alias
 * pipeline.max_parallel_synthesis (warned; the canonical key wins),
 * unknown and deprecated keys (warned with their line), type errors and
 * syntax errors naming line and column, and czk.example.toml, which lists
 * every key with its default: loading it gives exactly the defaults.
 * srs.shape_cache is resolved once, when the engine is made
 * (czk_engine_config_finish): a value set stays; "" becomes
 * $CZK_CACHE_DIR/shapes, else $HOME/.cache/czk/shapes, else stays "".
 */
#include "support.h"

#include "czk/engine.h"
#include "czk/httpstatus.h" /* [daemon]: the server's table */
#include "engine/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct warns {
    char msg[16][512];
    int n;
} warns;

static void on_warn(void *ctx, const char *msg) {
    warns *w = ctx;
    if (w->n < 16) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", msg);
    w->n++;
}

/* [daemon] of the last parse: the server's table (src/httpstatus/daemon_config.c), read in the
 * same pass as the engine's (czk_config_parse), as czk daemon reads the file. */
static czk_daemon_config g_daemon;

static czk_status parse(czk_engine_config *c, const char *text, warns *w, czk_err *err) {
    czk_engine_config_default(c);
    czk_daemon_config_default(&g_daemon);
    czk_config_table t = czk_daemon_config_table(&g_daemon);
    memset(w, 0, sizeof *w);
    return czk_config_parse(c, &t, 1, text, strlen(text), "t.toml", on_warn, w, err);
}

static void test_sizes(void **state) {
    (void)state;
    static const struct {
        const char *s;
        uint64_t v;
    } ok[] = {
        {"50GiB", 53687091200ull}, /* cuzk test_parse_size */
        {"140GiB", 150323855360ull},
        {"626MiB", 656408576ull},
        {"5 GiB", 5368709120ull},
        {"50GB", 50000000000ull},
        {"20MB", 20000000ull},
        {"1048576", 1048576ull},
        {" 7 ", 7ull},
    };
    czk_err err;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        uint64_t v = 0;
        czk_assert_ok(czk_parse_size(ok[i].s, &v, &err), &err);
        assert_int_equal(v, ok[i].v);
    }
    static const char *bad[] = {"",
                                "GiB",
                                "5TiB",
                                "5 KiB",
                                "-1",
                                "1.5GiB",
                                "5gib",
                                "99999999999999999999",
                                "20000000000GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        assert_int_equal(czk_parse_size(bad[i], &v, &err), CZK_ERR_INVALID_ARG);
    }
    static const struct {
        const char *s;
        uint64_t ms;
    } dok[] = {{"5m", 300000}, {"300s", 300000}, {"10m", 600000}, {"60", 60000}, {"0s", 0}};
    for (size_t i = 0; i < sizeof dok / sizeof dok[0]; i++) {
        uint64_t v = 1;
        czk_assert_ok(czk_parse_duration_ms(dok[i].s, &v, &err), &err);
        assert_int_equal(v, dok[i].ms);
    }
    static const char *dbad[] = {"", "5h", "m", "1.5m", "-5s", "5 min"};
    for (size_t i = 0; i < sizeof dbad / sizeof dbad[0]; i++) {
        uint64_t v;
        assert_int_equal(czk_parse_duration_ms(dbad[i], &v, &err), CZK_ERR_INVALID_ARG);
    }
}

static void test_values(void **state) {
    (void)state;
    const char *text = "[daemon]\n"
                       "listen = \"0.0.0.0:9820\"\n"
                       "[srs]\n"
                       "param_cache = \"/var/tmp/params\"\n"
                       "shape_cache = \"/var/tmp/shapes\"\n"
                       "preload = [\"porep-32g\", \"porep-2k\"]\n"
                       "lagrange = false\n"
                       "[memory]\n"
                       "total_budget = \"256GiB\"\n"
                       "safety_margin = 1073741824\n"
                       "eviction_min_idle = \"10m\"\n"
                       "[gpus]\n"
                       "devices = [0, 3]\n"
                       "gpu_threads = 32\n"
                       "gpu_workers_per_device = 3\n"
                       "vram_budget = \"100GiB\"\n"
                       "cpu_devices = 2\n"
                       "[scheduler]\n"
                       "sort_by_type = false\n"
                       "result_retention = 90\n"
                       "[synthesis]\n"
                       "threads = 8\n"
                       "partition_workers = 12\n"
                       "[pipeline]\n"
                       "max_gpu_queue_depth = 8\n"
                       "[logging]\n"
                       "level = \"debug\"\n"
                       "timeline_file = \"/tmp/t.log\"\n";
    czk_engine_config c;
    warns w;
    czk_err err;
    czk_assert_ok(parse(&c, text, &w, &err), &err);
    assert_int_equal(w.n, 0);
    assert_string_equal(g_daemon.listen, "0.0.0.0:9820");
    assert_string_equal(g_daemon.status_listen, ""); /* not set: the default */
    assert_true(g_daemon.shutdown_drain);
    /* the rest of [daemon], each type of a foreign table's key */
    czk_assert_ok(parse(&c,
                        "[daemon]\nstatus_listen = \"127.0.0.1:9821\"\nshutdown_drain = false\n"
                        "shutdown_grace = \"2m\"\nmax_message_size = \"64 MiB\"\n",
                        &w, &err),
                  &err);
    assert_int_equal(w.n, 0);
    assert_string_equal(g_daemon.status_listen, "127.0.0.1:9821");
    assert_false(g_daemon.shutdown_drain);
    assert_int_equal(g_daemon.shutdown_grace_ms, 120000);
    assert_int_equal(g_daemon.max_message_bytes, 64ull << 20);
    /* the engine alone knows no [daemon]: an unknown table, nothing read */
    czk_engine_config_default(&c);
    memset(&w, 0, sizeof w);
    const char *d = "[daemon]\nlisten = \"0.0.0.0:9820\"\n";
    czk_assert_ok(czk_engine_config_parse(&c, d, strlen(d), "t.toml", on_warn, &w, &err), &err);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "t.toml:1:2: unknown table [daemon]"));
    czk_assert_ok(parse(&c, text, &w, &err), &err); /* the engine's keys, checked below */
    assert_string_equal(c.param_cache, "/var/tmp/params");
    assert_string_equal(c.shape_cache, "/var/tmp/shapes");
    assert_int_equal(c.num_preload, 2);
    assert_string_equal(c.preload[1], "porep-2k");
    assert_false(c.lagrange); /* the default, true, is the example file's (test_example_file) */
    assert_int_equal(c.total_budget, 256ull << 30);
    assert_int_equal(c.safety_margin, 1ull << 30);
    assert_int_equal(c.eviction_min_idle_ms, 600000);
    assert_int_equal(c.num_devices, 2);
    assert_int_equal(c.devices[1], 3);
    assert_int_equal(c.gpu_threads, 32);
    assert_int_equal(c.gpu_workers_per_device, 3);
    assert_int_equal(c.vram_budget, 100ull << 30);
    assert_int_equal(c.cpu_devices, 2);
    assert_false(c.sort_by_type);
    assert_int_equal(c.result_retention_ms, 90000);
    assert_int_equal(c.threads, 8);
    assert_int_equal(c.partition_workers, 12);
    assert_int_equal(c.max_gpu_queue_depth, 8);
    assert_string_equal(c.log_level, "debug");
    assert_string_equal(c.timeline_file, "/tmp/t.log");
    /* "auto" */
    czk_assert_ok(parse(&c, "[memory]\ntotal_budget = \"auto\"\n", &w, &err), &err);
    assert_int_equal(c.total_budget, 0);
    czk_assert_ok(parse(&c, "[gpus]\nvram_budget = \"auto\"\n", &w, &err), &err);
    assert_int_equal(c.vram_budget, 0);
    /* a bare number of bytes from 1 MiB on, and any size with its unit, are taken as written */
    czk_assert_ok(parse(&c, "[memory]\nsafety_margin = 1048576\n", &w, &err), &err);
    assert_int_equal(c.safety_margin, 1048576);
    czk_assert_ok(parse(&c, "[memory]\ntotal_budget = \"2097152\"\n", &w, &err), &err);
    assert_int_equal(c.total_budget, 2097152);
    czk_assert_ok(parse(&c, "[memory]\ntotal_budget = \"12 MB\"\n", &w, &err), &err);
    assert_int_equal(c.total_budget, 12000000);
    czk_assert_ok(parse(&c, "[memory]\nsafety_margin = 0\n", &w, &err), &err);
    assert_int_equal(c.safety_margin, 0);
    /* the GPU queue: bounded by default ("auto": the engine makes it 2 per GPU worker), 0 = no
     * limit */
    czk_engine_config_default(&c);
    assert_int_equal(c.max_gpu_queue_depth, CZK_GPU_QUEUE_AUTO);
    czk_assert_ok(parse(&c, "[pipeline]\nmax_gpu_queue_depth = 0\n", &w, &err), &err);
    assert_int_equal(c.max_gpu_queue_depth, 0);
    czk_assert_ok(parse(&c, "[pipeline]\nmax_gpu_queue_depth = \"auto\"\n", &w, &err), &err);
    assert_int_equal(c.max_gpu_queue_depth, CZK_GPU_QUEUE_AUTO);
}

static void test_alias_and_warnings(void **state) {
    (void)state;
    czk_engine_config c;
    warns w;
    czk_err err;
    /* the alias alone sets the canonical key, with a warning naming both and the line */
    czk_assert_ok(parse(&c, "[pipeline]\nmax_parallel_synthesis = 10\n", &w, &err), &err);
    assert_int_equal(c.partition_workers, 10);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "t.toml:2:"));
    assert_non_null(strstr(w.msg[0], "pipeline.max_parallel_synthesis"));
    assert_non_null(strstr(w.msg[0], "synthesis.partition_workers"));
    /* both: the canonical key wins, in either order */
    czk_assert_ok(parse(&c,
                        "[pipeline]\nmax_parallel_synthesis = 10\n"
                        "[synthesis]\npartition_workers = 4\n",
                        &w, &err),
                  &err);
    assert_int_equal(c.partition_workers, 4);
    czk_assert_ok(parse(&c,
                        "[synthesis]\npartition_workers = 4\n"
                        "[pipeline]\nmax_parallel_synthesis = 10\n",
                        &w, &err),
                  &err);
    assert_int_equal(c.partition_workers, 4);
    /* unknown keys and tables, deprecated keys: warned, ignored */
    czk_assert_ok(parse(&c,
                        "[memory]\n"
                        "pinned_budget = \"50GiB\"\n"
                        "no_such_key = 1\n"
                        "[gpus]\n"
                        "gpu_workers_per_device = 1\n"
                        "[frobnicate]\n"
                        "x = 1\n"
                        "top = 2\n",
                        &w, &err),
                  &err);
    assert_int_equal(c.gpu_workers_per_device, 1);
    assert_int_equal(w.n, 3);
    int dep = -1, unk = -1, tab = -1;
    for (int i = 0; i < w.n; i++) {
        if (strstr(w.msg[i], "memory.pinned_budget is deprecated")) dep = i;
        if (strstr(w.msg[i], "unknown key memory.no_such_key")) unk = i;
        if (strstr(w.msg[i], "unknown table [frobnicate]")) tab = i;
    }
    assert_true(dep >= 0 && unk >= 0 && tab >= 0);
    assert_non_null(strstr(w.msg[dep], "t.toml:2:"));
    assert_non_null(strstr(w.msg[unk], "t.toml:3:"));
    assert_non_null(strstr(w.msg[tab], "t.toml:6:"));
    /* an unknown key of a foreign table: warned as the engine's own */
    czk_assert_ok(parse(&c, "[daemon]\nlisen = \"x\"\n", &w, &err), &err);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "t.toml:2:1: unknown key daemon.lisen"));
    /* a key outside any table */
    czk_assert_ok(parse(&c, "bogus = true\n", &w, &err), &err);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "t.toml:1:1: unknown key bogus"));
}

static void test_errors(void **state) {
    (void)state;
    czk_engine_config c;
    warns w;
    czk_err err;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"[gpus]\ngpu_workers_per_device = \"two\"\n",
         "t.toml:2:26: gpus.gpu_workers_per_device: expected an integer, got string"},
        {"[memory]\n\nsafety_margin = true\n",
         "t.toml:3:17: memory.safety_margin: expected a size (string or integer), got boolean"},
        {"[memory]\ntotal_budget = \"lots\"\n", "t.toml:2:16: memory.total_budget: 'lots' is not"},
        {"[gpus]\nvram_budget = \"0\"\n", "t.toml:2:15: gpus.vram_budget: zero (use \"auto\")"},
        /* a bare number of bytes below 1 MiB: a unit left out (issue 20 item 12) */
        {"[memory]\ntotal_budget = 12\n",
         "t.toml:2:16: memory.total_budget: 12 is taken as bytes, below the 1 MiB a bare number "
         "may give; write the unit (\"12 GiB\", \"12 MiB\", \"12 GB\" or \"12 MB\")"},
        {"[memory]\ntotal_budget = \"12\"\n",
         "t.toml:2:16: memory.total_budget: 12 is taken as bytes, below the 1 MiB"},
        {"[gpus]\nvram_budget = 80\n", "t.toml:2:15: gpus.vram_budget: 80 is taken as bytes"},
        {"[memory]\nsafety_margin = 1048575\n",
         "t.toml:2:17: memory.safety_margin: 1048575 is taken as bytes"},
        {"[daemon]\nmax_message_size = \" 256 \"\n",
         "t.toml:2:20: daemon.max_message_size: 256 is taken as bytes"},
        {"[daemon]\nshutdown_drain = 1\n",
         "t.toml:2:18: daemon.shutdown_drain: expected a boolean, got integer"},
        {"[daemon]\nshutdown_grace = \"5h\"\n",
         "t.toml:2:18: daemon.shutdown_grace: '5h' is not a duration"},
        {"[daemon]\nlisten = 9820\n", "t.toml:2:10: daemon.listen: expected a string, got integer"},
        {"[memory]\neviction_min_idle = \"5h\"\n",
         "t.toml:2:21: memory.eviction_min_idle: '5h' is not a duration"},
        {"[gpus]\ndevices = [0, \"1\"]\n",
         "t.toml:2:15: gpus.devices[1]: expected an integer, got string"},
        {"[pipeline]\nenabled = 1\n",
         "t.toml:2:11: pipeline.enabled: expected a boolean, got integer"},
        {"[synthesis]\nthreads = -1\n", "t.toml:2:11: synthesis.threads: out of range"},
        {"[logging]\nlevel = \"loud\"\n", "t.toml:2:9: logging.level: 'loud' is not one of"},
        {"[pipeline]\nmax_gpu_queue_depth = \"many\"\n",
         "t.toml:2:23: pipeline.max_gpu_queue_depth: expected an integer or \"auto\", got string"},
        {"[pipeline]\nmax_gpu_queue_depth = -2\n",
         "t.toml:2:23: pipeline.max_gpu_queue_depth: out of range"},
        {"[srs]\npreload = \"porep-32g\"\n",
         "t.toml:2:11: srs.preload: expected an array of strings, got string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_err_clear(&err);
        assert_int_equal(parse(&c, cases[i].text, &w, &err), CZK_ERR_INVALID_ARG);
        if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
            fail_msg("case %zu: got '%s', want '%s...'", i, err.msg, cases[i].msg);
    }
    /* TOML syntax: CZK_ERR_FORMAT with line and column */
    assert_int_equal(parse(&c, "[gpus]\ndevices = [0,\n", &w, &err), CZK_ERR_FORMAT);
    assert_int_equal(strncmp(err.msg, "t.toml:", 7), 0);
    assert_int_equal(parse(&c, "[a]\nx = 1\nx = 2\n", &w, &err), CZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "t.toml:3:"));
    /* a missing file */
    assert_int_equal(czk_engine_config_load(&c, "/nonexistent/czk.toml", NULL, NULL, &err),
                     CZK_ERR_IO);
}

static void test_shape_cache_resolved_once(void **state) {
    (void)state;
    char *keep_cache = getenv("CZK_CACHE_DIR") ? strdup(getenv("CZK_CACHE_DIR")) : NULL;
    char *keep_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    czk_engine_config c;
    czk_engine_config_default(&c);
    assert_string_equal(c.shape_cache, "");
    setenv("CZK_CACHE_DIR", "/srv/czk-cache", 1);
    setenv("HOME", "/home/prover", 1);
    czk_engine_config_finish(&c);
    assert_string_equal(c.shape_cache, "/srv/czk-cache/shapes");
    setenv("CZK_CACHE_DIR", "/elsewhere", 1); /* read once: a later change is not seen */
    czk_engine_config_finish(&c);
    assert_string_equal(c.shape_cache, "/srv/czk-cache/shapes");
    czk_engine_config_default(&c);
    unsetenv("CZK_CACHE_DIR");
    czk_engine_config_finish(&c);
    assert_string_equal(c.shape_cache, "/home/prover/.cache/czk/shapes");
    czk_engine_config_default(&c);
    unsetenv("HOME");
    czk_engine_config_finish(&c);
    assert_string_equal(c.shape_cache, "");
    czk_engine_config_default(&c);
    snprintf(c.shape_cache, sizeof c.shape_cache, "/data/shapes");
    setenv("CZK_CACHE_DIR", "/srv/czk-cache", 1);
    czk_engine_config_finish(&c);
    assert_string_equal(c.shape_cache, "/data/shapes");
    if (keep_cache)
        setenv("CZK_CACHE_DIR", keep_cache, 1);
    else
        unsetenv("CZK_CACHE_DIR");
    if (keep_home)
        setenv("HOME", keep_home, 1);
    else
        unsetenv("HOME");
    free(keep_cache);
    free(keep_home);
}

static void test_example_file(void **state) {
    (void)state;
    const char *src = getenv("CZK_SOURCE_DIR");
    if (!src) fail_msg("CZK_SOURCE_DIR is not set (run through ctest)");
    char path[1024];
    snprintf(path, sizeof path, "%s/czk.example.toml", src);
    czk_engine_config c, d;
    czk_engine_config_default(&c);
    czk_engine_config_default(&d);
    warns w;
    memset(&w, 0, sizeof w);
    czk_err err;
    czk_daemon_config dc, dd;
    czk_daemon_config_default(&dc);
    czk_daemon_config_default(&dd);
    czk_config_table t = czk_daemon_config_table(&dc);
    czk_assert_ok(czk_config_load(&c, &t, 1, path, on_warn, &w, &err), &err);
    for (int i = 0; i < w.n && i < 16; i++)
        fprintf(stderr, "warning: %s\n", w.msg[i]);
    assert_int_equal(w.n, 0);
    assert_memory_equal(&c, &d, sizeof c);
    assert_memory_equal(&dc, &dd, sizeof dc);
    /* and every key is in it: the file sets each one; change them all and compare */
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int keys = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] >= 'a' && line[0] <= 'z' && strstr(line, " = ")) keys++;
    fclose(f);
    assert_int_equal(keys, 36); /* the 33 keys of the table in src/engine/config.c and the 6 of
                                   [daemon] (src/httpstatus/daemon_config.c), less the two
                                   deprecated ones (named in a comment) and the alias */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_alias_and_warnings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_shape_cache_resolved_once),
        cmocka_unit_test(test_example_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
