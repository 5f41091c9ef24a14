/* czk internal — /proc/<pid>/status figures (src/util/proc.h). */
#include "util/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t czk_proc_status_bytes(pid_t pid, const char *key) {
    char path[64], line[256];
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/status");
    else
        snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    uint64_t kb = 0;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            kb = strtoull(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return kb * 1024;
}
