/*
 * `czk bench --addr`: the remote runner, a czk daemon reached over gRPC.
 * This build has no gRPC client (include/czk/rpc.h), so --addr is refused
 * with a message that says so.
 */
#include "cli/cli.h"
#include "czk/bench.h"

czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, czk_err *err);

czk_status czk_bench_remote(czk_bench_runner *out, const char *addr, czk_err *err) {
    (void)addr;
    out->ops = NULL;
    out->self = NULL;
    return czk_errf(err, CZK_ERR_UNSUPPORTED,
                    "the gRPC client is not available in this build (use --in-process)");
}
