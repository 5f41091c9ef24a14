/*
 * `czk check-c1 FILE [--sector-num N] [--miner-id N] [--threads N]`: the C1
 * intake alone. Parses FILE (a raw C1 JSON, or cuzk's PoRep envelope
 * {"SectorNum","Phase1Out","SectorSize"}, told apart by the first key) and
 * runs the vanilla pre-check, without proving anything. Exit 0 with the
 * shape, partitions and challenges; 1 with the first thing wrong; 2 for
 * usage and I/O errors.
 *
 * replica_id can only be recomputed with the sector number and the miner
 * id, which a raw C1 does not carry; an envelope carries the sector number.
 * Without them that check is skipped, and the output says so.
 */
#include "cli/cli.h"
#include "czk/porep_c1.h"
#include "czk/porep_precheck.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char USAGE[] =
    "usage: czk check-c1 FILE [--sector-num N] [--miner-id N] [--threads N]\n"
    "       (options before or after FILE, as --opt VALUE or --opt=VALUE)\n\n"
    "Parses a PoRep C1 (SealCommitPhase1Output JSON, or cuzk's envelope\n"
    "{\"SectorNum\",\"Phase1Out\",\"SectorSize\"}) and runs the vanilla pre-check:\n"
    "every Merkle path, column hash, label and the encoding of every challenge,\n"
    "the challenges as the chain derives them, the graph's parents, and\n"
    "comm_r = Poseidon(comm_c, comm_r_last). With the sector number (an envelope\n"
    "carries it) and the miner id (N of f0N), replica_id is recomputed too.\n\n"
    "  --sector-num N  the sector number (default: the envelope's SectorNum)\n"
    "  --miner-id N    the miner actor id\n"
    "  --threads N     threads for the pre-check (default: all CPUs)\n\n"
    "exit status: 0 the C1 is fine, 1 it is refused (the reason is printed),\n"
    "2 usage or I/O error\n";

static void hex32(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int czk_cmd_check_c1(int argc, char **argv) {
    enum { O_SECTOR = 256, O_MINER, O_THREADS };
    static const struct option LONG[] = {{"sector-num", required_argument, NULL, O_SECTOR},
                                         {"miner-id", required_argument, NULL, O_MINER},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *file = NULL;
    uint64_t sector = 0, miner = 0, threads = 0;
    bool have_sector = false, have_miner = false;
    optind = 0; /* glibc: reinitialize (argv changes between parses) */
    opterr = 0; /* czk_cli_getopt_fail names the option */
    int ch;
    while ((ch = getopt_long(argc, argv, ":h", LONG, NULL)) != -1) {
        uint64_t v = 0;
        if (ch >= O_SECTOR && ch <= O_THREADS && !czk_cli_parse_u64(optarg, &v)) {
            fputs(USAGE, stderr);
            return czk_cli_fail("check-c1", "--%s takes an unsigned integer, not '%s'",
                                LONG[ch - O_SECTOR].name, optarg);
        }
        switch (ch) {
        case O_SECTOR:
            sector = v;
            have_sector = true;
            break;
        case O_MINER:
            miner = v;
            have_miner = true;
            break;
        case O_THREADS:
            threads = v;
            break;
        case 'h':
            fputs(USAGE, stdout);
            return CZK_EXIT_OK;
        default:
            return czk_cli_getopt_fail("check-c1", USAGE, ch, argv, LONG);
        }
    }
    if (optind < argc) file = argv[optind++];
    if (optind < argc) {
        fputs(USAGE, stderr);
        return czk_cli_fail("check-c1", "one FILE only (also '%s')", argv[optind]);
    }
    if (!file) {
        fputs(USAGE, stderr);
        return czk_cli_fail("check-c1", "no FILE");
    }
    if (threads > 1024)
        return czk_cli_fail("check-c1", "--threads %llu is too many", (unsigned long long)threads);

    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = czk_cli_read_c1("check-c1", file, &buf, &len);
    if (rc) return rc;
    czk_err err;
    czk_c1 *c1 = NULL;
    bool env = false;
    uint64_t env_sector = 0;
    double t0 = czk_cli_now();
    czk_status st = czk_cli_parse_c1(&c1, &env, &env_sector, buf, len, &err);
    double t_parse = czk_cli_now() - t0;
    free(buf);
    if (st) {
        fprintf(stderr, "czk check-c1: %s: refused: %s\n", file, err.msg);
        return st == CZK_ERR_NOMEM ? CZK_EXIT_ERROR : CZK_EXIT_NO;
    }
    if (env) {
        if (have_sector && sector != env_sector) {
            fprintf(stderr,
                    "czk check-c1: %s: refused: the envelope's SectorNum %llu is not "
                    "--sector-num %llu\n",
                    file, (unsigned long long)env_sector, (unsigned long long)sector);
            czk_c1_free(c1);
            return CZK_EXIT_NO;
        }
        sector = env_sector;
        have_sector = true;
    }

    czk_porep_proof pr;
    if (czk_porep_proof_lookup(c1->registered_proof, &pr, &err)) {
        czk_c1_free(c1);
        return czk_cli_fail("check-c1", "%s", err.msg);
    }
    const czk_porep_shape *s = pr.shape;
    char h[65];
    printf("%s: %s C1 of %s (registered proof %u), %s sector\n", file, env ? "enveloped" : "raw",
           czk_registered_proof_name(c1->registered_proof), c1->registered_proof, s->name);
    if (env)
        printf("  envelope: SectorNum %llu, SectorSize %llu\n", (unsigned long long)env_sector,
               (unsigned long long)s->sector_size);
    printf("  %u partition%s x %u challenge%s, %u layers, TreeD depth %u, TreeR/TreeC "
           "%u-%u-%u\n",
           c1->num_partitions, c1->num_partitions == 1 ? "" : "s", c1->challenges_per_partition,
           c1->challenges_per_partition == 1 ? "" : "s", s->layers, s->log2_nodes,
           s->tree_base_arity, s->tree_sub_arity, s->tree_top_arity);
    hex32(h, c1->comm_r.b);
    printf("  comm_r     %s\n", h);
    hex32(h, c1->comm_d.b);
    printf("  comm_d     %s\n", h);
    hex32(h, c1->replica_id.b);
    printf("  replica_id %s\n", h);
    printf("  parsed in %.3f s\n", t_parse);
    fflush(stdout);

    czk_pool *pool = czk_pool_create((unsigned)threads, &err);
    if (!pool) {
        czk_c1_free(c1);
        return czk_cli_fail("check-c1", "%s", err.msg);
    }
    czk_precheck_opts opts = {
        .have_ids = have_sector && have_miner, .sector_num = sector, .miner_id = miner};
    t0 = czk_cli_now();
    st = czk_c1_precheck(c1, &opts, pool, &err);
    double t_check = czk_cli_now() - t0;
    czk_pool_destroy(pool);
    if (st) {
        fprintf(stderr, "czk check-c1: %s: refused: %s\n", file, err.msg);
        czk_c1_free(c1);
        return st == CZK_ERR_NOMEM || st == CZK_ERR_INTERNAL ? CZK_EXIT_ERROR : CZK_EXIT_NO;
    }
    if (opts.have_ids)
        printf("  replica_id matches miner f0%llu, sector %llu\n", (unsigned long long)miner,
               (unsigned long long)sector);
    else
        printf("  replica_id NOT checked: it needs %s\n", have_sector ? "--miner-id"
                                                          : have_miner
                                                              ? "--sector-num"
                                                              : "--sector-num and --miner-id");
    printf("  pre-check: %u vanilla proofs verified in %.3f s\n",
           c1->num_partitions * c1->challenges_per_partition, t_check);
    printf("OK\n");
    czk_c1_free(c1);
    return CZK_EXIT_OK;
}
