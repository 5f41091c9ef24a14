/*
 * `czk timeline LOG [--svg FILE]`: summarizes the TIMELINE lines of an
 * engine log (the logging.timeline_file, or any log that holds such lines,
 * in any order) with the analysis of include/czk/timeline.h: synthesis time
 * per partition, device time per partition (device lock held),
 * finalization and GPU-queue waits, per device the busy fraction and the
 * idle gaps, and s/proof = wall time from the first JOB_SUBMIT to the last
 * JOB_DONE over completed jobs (cuzk-bench's definition, cuzk-engine.md §5).
 * --svg also draws the timeline (czk_tl_svg).
 */
#include "cli/cli.h"
#include "czk/timeline.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: czk timeline LOG [--svg FILE] [--title TEXT] [--width PX]\n\n"
               "Summarizes the TIMELINE lines of a czk engine log (logging.timeline_file):\n"
               "synthesis and device time per partition, device busy fraction and idle gaps,\n"
               "and s/proof (first JOB_SUBMIT to last JOB_DONE over completed jobs).\n"
               "  --svg FILE    also draw the timeline: a lane per synthesis worker, GPU worker\n"
               "                and finalizer, a bar per partition coloured by job, device idle\n"
               "                gaps in red, time axis in seconds\n"
               "  --title TEXT  the picture's title (default: the log's name)\n"
               "  --width PX    the picture's width (default 1200)\n");
}

int czk_cmd_timeline(int argc, char **argv) {
    static const struct option LONG[] = {{"svg", required_argument, NULL, 's'},
                                         {"title", required_argument, NULL, 't'},
                                         {"width", required_argument, NULL, 'w'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *svg = NULL, *title = NULL;
    uint64_t width = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        switch (c) {
        case 's':
            svg = optarg;
            break;
        case 't':
            title = optarg;
            break;
        case 'w':
            if (!czk_cli_parse_u64(optarg, &width) || width < 400 || width > 100000)
                return czk_cli_fail("timeline", "--width: expected 400..100000 pixels, got '%s'",
                                    optarg);
            break;
        case 'h':
            usage(stdout);
            return CZK_EXIT_OK;
        default:
            usage(stderr);
            return czk_cli_fail("timeline", "unknown option or missing value: %s",
                                argv[optind - 1]);
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }
    const char *path = argv[optind];
    czk_tl tl;
    czk_tl_init(&tl);
    czk_err err;
    if (czk_tl_read_file(&tl, path, &err)) {
        czk_tl_free(&tl);
        /* err names the path and the reason, after its own "timeline: " */
        const char *m = strncmp(err.msg, "timeline: ", 10) ? err.msg : err.msg + 10;
        return czk_cli_fail("timeline", "%s", m);
    }
    if (!tl.n) {
        czk_tl_free(&tl);
        return czk_cli_fail("timeline", "%s holds no TIMELINE lines", path);
    }
    czk_tl_summary s;
    if (czk_tl_analyze(&tl, &s, &err)) {
        czk_tl_free(&tl);
        return czk_cli_fail("timeline", "%s", err.msg);
    }
    czk_tl_summary_print(stdout, &s);
    czk_tl_summary_free(&s);
    int rc = CZK_EXIT_OK;
    if (svg) {
        czk_tl_svg_opts o = {(unsigned)width, title ? title : path};
        if (czk_tl_svg_file(&tl, svg, &o, &err))
            rc = czk_cli_fail("timeline", "%s", err.msg);
        else
            printf("%-22s %s\n", "svg", svg);
    }
    czk_tl_free(&tl);
    return rc;
}
