/* Candidate measurement (not part of the build): stream a C1 JSON through
 * yajl's callback parser, parsing every integer from its text and summing
 * them. See run.sh. */
#include <yajl/yajl_parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_ms(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}
static long kib(const char *key) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = strtol(line + strlen(key) + 1, NULL, 10);
    fclose(f);
    return v;
}
static unsigned long long sum;
static int on_number(void *c, const char *s, size_t n) {
    (void)c;
    unsigned long long v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    sum += v;
    return 1;
}
static int on_string(void *c, const unsigned char *s, size_t n) {
    (void)c;
    (void)s;
    sum += n;
    return 1;
}
static int on_key(void *c, const unsigned char *s, size_t n) {
    (void)c;
    (void)s;
    (void)n;
    return 1;
}
static int on_null(void *c) {
    (void)c;
    return 1;
}
static int on_open(void *c) {
    (void)c;
    return 1;
}

int main(int argc, char **argv) {
    (void)argc;
    FILE *f = fopen(argv[1], "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(size);
    if (fread(buf, 1, size, f) != (size_t)size) return 2;
    long before = kib("VmRSS");
    yajl_callbacks cb = {.yajl_null = on_null,
                         .yajl_number = on_number,
                         .yajl_string = on_string,
                         .yajl_start_map = on_open,
                         .yajl_map_key = on_key,
                         .yajl_end_map = on_open,
                         .yajl_start_array = on_open,
                         .yajl_end_array = on_open};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double c0 = cpu_ms();
    yajl_handle h = yajl_alloc(&cb, NULL, NULL);
    if (yajl_parse(h, buf, size) != yajl_status_ok || yajl_complete_parse(h) != yajl_status_ok)
        return 3;
    yajl_free(h);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double c1 = cpu_ms() - c0;
    printf("yajl stream: sum %llu, %.1f ms wall, %.1f ms CPU, file %.1f MiB, RSS before %.1f MiB, "
           "peak %.1f MiB\n",
           sum, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6, c1,
           size / 1048576.0, before / 1024.0, kib("VmHWM") / 1024.0);
    return 0;
}
