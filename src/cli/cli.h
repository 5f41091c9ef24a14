/*
 * The `czk` command: one function per subcommand, argv as after the
 * subcommand name (argv[0] is the subcommand). Exit status: 0 success or
 * positive answer, 1 negative answer (proof invalid, input refused), 2 usage,
 * I/O or internal error. Errors go to stderr as one line naming what is wrong.
 */
#ifndef CZK_CLI_H
#define CZK_CLI_H

#include "czk/common.h"
#include <stdio.h>

enum { CZK_EXIT_OK = 0, CZK_EXIT_NO = 1, CZK_EXIT_ERROR = 2 };

typedef struct czk_cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} czk_cli_command;

int czk_cmd_selftest(int argc, char **argv);
int czk_cmd_circuit_info(int argc, char **argv);
int czk_cmd_setup(int argc, char **argv);
int czk_cmd_check_c1(int argc, char **argv);
int czk_cmd_gen_vanilla(int argc, char **argv);

/* Prints "czk <cmd>: <message>" to stderr; returns CZK_EXIT_ERROR. */
int czk_cli_fail(const char *cmd, const char *fmt, ...) CZK_PRINTF(2, 3);
/* Exit status for a czk_status: OK -> 0, input refused -> 1... callers choose. */
/* True if argv holds -h or --help. */
int czk_cli_wants_help(int argc, char **argv);

#endif
