/* `czk <subcommand> [options]`: dispatch, --help, --version. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const czk_cli_command COMMANDS[] = {
    {"selftest", "run quick known-answer checks of every layer", czk_cmd_selftest},
    {"check-c1", "parse a PoRep C1 (or cuzk envelope) and pre-check its vanilla proofs",
     czk_cmd_check_c1},
    {"circuit-info", "R1CS counts, densities and .params sizes of a partition (PoRep, PoSt, Snap)",
     czk_cmd_circuit_info},
    {"setup",
     "Groth16 test keys (.params, .vk): PoRep, PoSt or snap (--kind) of a size, or a shape",
     czk_cmd_setup},
    {"lagrange",
     "the Lagrange form of a key set's H and L, derived from its points (ceremony keys)",
     czk_cmd_lagrange},
    {"timeline", "summarize an engine TIMELINE log (GPU busy, idle gaps, s/proof), --svg",
     czk_cmd_timeline},
    {"prove",
     "PoRep C2 (or a PoSt/SnapDeals request, --kind) through the engine: prove, verify, write",
     czk_cmd_prove},
    {"verify", "verify PoRep C2 (or PoSt, SnapDeals: --kind) proofs as the chain does",
     czk_cmd_verify},
    {"gen-vanilla",
     "seal a test sector: its C1 JSON (or sparse C1), or PoSt (--post) or SnapDeals (--snap) "
     "vanilla proofs",
     czk_cmd_gen_vanilla},
    {"daemon", "serve the gRPC service cuzk.v1.ProvingEngine (Curio's cuzk protocol)",
     czk_cmd_daemon},
    {"client", "call a cuzk.v1.ProvingEngine daemon: prove, status, metrics, preload, ...",
     czk_cmd_client},
    {"bench", "throughput at a chosen concurrency, config sweeps, SVG timeline", czk_cmd_bench},
};

int czk_cli_fail(const char *cmd, const char *fmt, ...) {
    fprintf(stderr, "czk %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CZK_EXIT_ERROR;
}

int czk_cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return 1;
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: czk <subcommand> [options]\n\n"
               "czk is a Groth16 proving engine for Filecoin (PoRep C2, PoSt, "
               "SnapDeals).\n\nsubcommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-14s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\n`czk <subcommand> --help` describes each one.\n"
               "exit status: 0 success, 1 negative answer (invalid proof, refused input), "
               "2 usage or other error\n");
}

int main(int argc, char **argv) {
    /* stdout line-buffered even into a file or a pipe, as stderr is unbuffered: a log that
     * holds both shows every line in the order it was printed */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (czk_cli_env_init()) return CZK_EXIT_ERROR;
    if (argc < 2) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("czk 0.1.0\n");
        return CZK_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "czk: unknown subcommand '%s' (czk --help lists them)\n", argv[1]);
    return CZK_EXIT_ERROR;
}
