/* CZK_TEST_LABELS: unit */
/*
 * `czk timeline LOG` on a hand-written log whose numbers are worked out
 * here: three partitions (synthesis 100, 200, 300 ms; device 50, 80, 70 ms
 * in [120,170], [210,290], [520,590]), so the device is busy 200 of 470 ms
 * (42.6%) with gaps of 40 and 230 ms; two jobs completed between 0 and
 * 600 ms, 0.300 s/proof. Lines out of order and lines of other text are
 * allowed.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char LOG[] =
    "czk engine info: something else\n"
    "TIMELINE,0,JOB_SUBMIT,a,partition=- worker=- kind=test\n"
    "TIMELINE,0,JOB_SUBMIT,b,partition=- worker=- kind=test\n"
    "TIMELINE,10,SYNTH_START,a,partition=0 worker=0\n"
    "TIMELINE,10,SYNTH_START,a,partition=1 worker=1\n"
    "TIMELINE,110,SYNTH_END,a,partition=0 worker=0 synth_ms=100\n"
    "TIMELINE,110,GPU_QUEUE,a,partition=0 worker=-\n"
    "TIMELINE,110,GPU_PICKUP,a,partition=0 worker=0 device=0\n"
    "TIMELINE,120,GPU_START,a,partition=0 worker=0 device=0\n"
    "TIMELINE,170,GPU_END,a,partition=0 worker=0 device=0 gpu_ms=50\n"
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

static char *run(const char *args) {
    const char *cli = getenv("CZK_TEST_CLI");
    if (!cli) fail_msg("CZK_TEST_CLI is not set (run through ctest)");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' timeline %s 2>&1", cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    static char out[8192];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    pclose(p);
    return out;
}

static void test_summary(void **state) {
    (void)state;
    char path[] = "/tmp/czk-timeline-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, LOG, sizeof LOG - 1), (ssize_t)(sizeof LOG - 1));
    close(fd);
    char *out = run(path);
    unlink(path);
    const char *want[] = {
        "jobs                   completed 2, failed 0, cancelled 0\n",
        "synthesis/partition    avg 200.0 ms (min 100, max 300; 3)\n",
        "gpu/partition          avg 66.7 ms (min 50, max 80; 3)\n",
        "gpu queue wait         avg 2.0 ms (min 0, max 4; 2)\n",
        "device 0               busy 42.6% of 470 ms; idle gaps 2, total 270 ms, max 230 ms, "
        "mean 135.0 ms\n",
        "wall                   0.600 s (first JOB_SUBMIT to last JOB_DONE)\n",
        "s/proof                0.300\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i])) fail_msg("missing '%s' in:\n%s", want[i], out);
}

/* Two CPU pseudo-devices (device=-1 and -2): device -1 busy [100,200] and [300,400] (200 of
 * 300 ms, one gap of 100 ms), device -2 busy [150,350] (all of its 200 ms), each on its own. */
static const char LOG2[] = "TIMELINE,100,GPU_START,a,partition=0 worker=0 device=-1\n"
                           "TIMELINE,150,GPU_START,a,partition=1 worker=1 device=-2\n"
                           "TIMELINE,200,GPU_END,a,partition=0 worker=0 device=-1 gpu_ms=100\n"
                           "TIMELINE,300,GPU_START,a,partition=2 worker=0 device=-1\n"
                           "TIMELINE,350,GPU_END,a,partition=1 worker=1 device=-2 gpu_ms=200\n"
                           "TIMELINE,400,GPU_END,a,partition=2 worker=0 device=-1 gpu_ms=100\n";

static void test_two_devices(void **state) {
    (void)state;
    char path[] = "/tmp/czk-timeline-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, LOG2, sizeof LOG2 - 1), (ssize_t)(sizeof LOG2 - 1));
    close(fd);
    char *out = run(path);
    unlink(path);
    const char *want[] = {
        "device cpu             busy 66.7% of 300 ms; idle gaps 1, total 100 ms, max 100 ms",
        "device cpu 1           busy 100.0% of 200 ms; idle gaps 0, total 0 ms",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(out, want[i])) fail_msg("missing '%s' in:\n%s", want[i], out);
}

static void test_bad_input(void **state) {
    (void)state;
    char *out = run("/nonexistent/log");
    assert_non_null(strstr(out, "czk timeline: cannot open /nonexistent/log"));
    out = run("/dev/null");
    assert_non_null(strstr(out, "holds no TIMELINE lines"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_two_devices),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
