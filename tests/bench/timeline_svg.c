/* CZK_TEST_LABELS: unit */
/* CZK_TEST_TIMEOUT: 120 */
/*
 * `czk timeline LOG --svg FILE` on a fixed log (below; the same shape as
 * engine.timeline_cli's, plus a finalizer): two jobs a and b, synthesis
 * workers 0 and 1, GPU workers 0 and 1 of device 0, finalizer 0. From the
 * log, by hand: lanes synth 0 (a 10..110, b 210..510), synth 1 (a 10..210),
 * gpu 0 dev 0 (a 120..170, b 520..590), gpu 1 dev 0 (a 210..290), the idle
 * strip of device 0, final 0 (a 175..185); the device is idle 170..210 and
 * 290..520.
 *
 * tests/bench/svg_check.py parses the SVG with python3's xml.etree (a real
 * XML parser), counts lanes, bars per lane (and their jobs) and gap marks,
 * then rasterises nothing itself: rsvg-convert (librsvg2-bin) draws the PNG,
 * which the script decodes (zlib + PNG filters) and samples at the middle of
 * every bar of the log — fitted to the axis ticks, not to the bars — for its
 * job's legend colour, and inside each idle gap for no job colour. The same
 * check with the jobs of one lane swapped must fail (the check can fail).
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char LOG[] =
    "TIMELINE,0,JOB_SUBMIT,a,partition=- worker=- kind=test\n"
    "TIMELINE,0,JOB_SUBMIT,b,partition=- worker=- kind=test\n"
    "TIMELINE,10,SYNTH_START,a,partition=0 worker=0\n"
    "TIMELINE,10,SYNTH_START,a,partition=1 worker=1\n"
    "TIMELINE,110,SYNTH_END,a,partition=0 worker=0 synth_ms=100\n"
    "TIMELINE,110,GPU_QUEUE,a,partition=0 worker=-\n"
    "TIMELINE,110,GPU_PICKUP,a,partition=0 worker=0 device=0\n"
    "TIMELINE,120,GPU_START,a,partition=0 worker=0 device=0\n"
    "TIMELINE,170,GPU_END,a,partition=0 worker=0 device=0 gpu_ms=50\n"
    "TIMELINE,175,FINALIZE_START,a,partition=0 worker=0\n"
    "TIMELINE,185,FINALIZE_END,a,partition=0 worker=0 finalize_ms=10\n"
    "TIMELINE,290,GPU_END,a,partition=1 worker=1 device=0 gpu_ms=80\n" /* out of order */
    "TIMELINE,210,SYNTH_END,a,partition=1 worker=1 synth_ms=200\n"
    "TIMELINE,210,GPU_QUEUE,a,partition=1 worker=-\n"
    "TIMELINE,214,GPU_PICKUP,a,partition=1 worker=1 device=0\n"
    "TIMELINE,210,GPU_START,a,partition=1 worker=1 device=0\n"
    "TIMELINE,300,JOB_DONE,a,partition=- worker=- status=COMPLETED total_ms=300\n"
    "TIMELINE,210,SYNTH_START,b,partition=0 worker=0\n"
    "TIMELINE,510,SYNTH_END,b,partition=0 worker=0 synth_ms=300\n"
    "TIMELINE,520,GPU_START,b,partition=0 worker=0 device=0\n"
    "TIMELINE,590,GPU_END,b,partition=0 worker=0 device=0 gpu_ms=70\n"
    "TIMELINE,600,JOB_DONE,b,partition=- worker=- status=COMPLETED total_ms=600\n";

/* What the log says, worked out by hand (see the header). */
static const char SPEC[] = "{\"lanes\": {"
                           "\"synth 0\": [[\"a\", 10, 110], [\"b\", 210, 510]],"
                           "\"synth 1\": [[\"a\", 10, 210]],"
                           "\"gpu 0 dev 0\": [[\"a\", 120, 170], [\"b\", 520, 590]],"
                           "\"gpu 1 dev 0\": [[\"a\", 210, 290]],"
                           "\"dev 0 idle\": [],"
                           "\"final 0\": [[\"a\", 175, 185]]},"
                           " \"gaps\": [[170, 210], [290, 520]],"
                           " \"gap_lanes\": [\"gpu 0 dev 0\", \"gpu 1 dev 0\"]}";

/* The same with a and b swapped on lane synth 0: must be refused. */
static const char SPEC_WRONG[] = "{\"lanes\": {"
                                 "\"synth 0\": [[\"b\", 10, 110], [\"a\", 210, 510]],"
                                 "\"synth 1\": [[\"a\", 10, 210]],"
                                 "\"gpu 0 dev 0\": [[\"a\", 120, 170], [\"b\", 520, 590]],"
                                 "\"gpu 1 dev 0\": [[\"a\", 210, 290]],"
                                 "\"dev 0 idle\": [],"
                                 "\"final 0\": [[\"a\", 175, 185]]},"
                                 " \"gaps\": [[170, 210], [290, 520]],"
                                 " \"gap_lanes\": [\"gpu 0 dev 0\", \"gpu 1 dev 0\"]}";

static char g_dir[256];

static void put(const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static int sh(const char *fmt, const char *a, const char *b) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    int rc = system(cmd);
    assert_true(rc != -1 && WIFEXITED(rc));
    return WEXITSTATUS(rc);
}

static void test_svg(void **state) {
    (void)state;
    const char *cli = getenv("CZK_TEST_CLI"), *src = getenv("CZK_SOURCE_DIR");
    if (!cli || !src) fail_msg("CZK_TEST_CLI / CZK_SOURCE_DIR not set (run through ctest)");
    if (sh("command -v rsvg-convert >/dev/null && command -v python3 >/dev/null%s%s", "", ""))
        fail_msg("rsvg-convert or python3 not found: scripts/setup.sh installs librsvg2-bin and "
                 "python3");
    snprintf(g_dir, sizeof g_dir, "%s/czk-svg-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(g_dir));
    put("t.log", LOG);
    put("spec.json", SPEC);
    put("wrong.json", SPEC_WRONG);
    assert_int_equal(
        sh("cd '%s' && '%s' timeline t.log --svg t.svg --title fixed >out.txt 2>&1", g_dir, cli),
        0);
    assert_int_equal(sh("cd '%s' && rsvg-convert t.svg -o t.png%s", g_dir, ""), 0);
    char chk[600];
    snprintf(chk, sizeof chk, "%s/tests/bench/svg_check.py", src);
    assert_int_equal(sh("cd '%s' && python3 '%s' t.svg t.png spec.json", g_dir, chk), 0);
    /* the checker refuses a picture that does not match */
    assert_int_equal(sh("cd '%s' && python3 '%s' t.svg t.png wrong.json >/dev/null", g_dir, chk),
                     1);
    /* a cut-off SVG is not well-formed XML */
    assert_int_equal(sh("cd '%s' && head -c 600 t.svg >cut.svg && python3 '%s' cut.svg t.png "
                        "spec.json >/dev/null 2>&1",
                        g_dir, chk),
                     1);
    /* an empty log draws nothing */
    put("empty.log", "no timeline here\n");
    assert_int_equal(
        sh("cd '%s' && '%s' timeline empty.log --svg e.svg >/dev/null 2>&1", g_dir, cli), 2);
    assert_int_equal(sh("test ! -e '%s/e.svg'%s", g_dir, ""), 0);
    assert_int_equal(sh("rm -rf '%s'%s", g_dir, ""), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_svg)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
