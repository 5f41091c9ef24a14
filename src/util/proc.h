/*
 * czk internal — process memory figures from Linux's /proc/<pid>/status
 * (proc(5)): VmHWM (peak resident set), VmRSS (resident set), in kB there.
 */
#ifndef CZK_UTIL_PROC_H
#define CZK_UTIL_PROC_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The value of the "KEY:" line of /proc/<pid>/status in bytes (the file
 * gives kB), pid 0 = this process; 0 when the file or the line is missing.
 */
uint64_t czk_proc_status_bytes(pid_t pid, const char *key);

#endif
