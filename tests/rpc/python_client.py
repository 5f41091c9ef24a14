#!/usr/bin/python3
"""A gRPC client czk did not write (Debian's python3-grpcio) against a running
`czk daemon` on the CPU backend.

Stubs are generated from proto/cuzk/v1/proving.proto at test time with
grpc_tools.protoc into a temporary directory. The daemon is started here with
a cuzk.toml written here (param_cache = the 2KiB PoRep test keys that
scripts/demo.sh and the porep.e2e_keys fixture make; czk's test kind, ProofKind
100, for checks where the proof kind does not matter) and stopped with SIGTERM.

Checked, every RPC:
  - GetStatus answers at once after start (before any keys are loaded);
  - Prove: 4 concurrent calls of the test kind all COMPLETED, 192 bytes per
    partition, all different;
  - SubmitProof / AwaitProof (timeout_ms honored: TIMEOUT) / CancelProof
    (was_running, then AwaitProof CANCELLED); unknown jobs NOT_FOUND;
  - GetStatus while proofs run: the queue of the running kind counts its
    partitions, the job holds the device or the pipeline;
  - GetMetrics: Prometheus text whose counters equal the proofs this test ran;
  - PreloadSRS / EvictSRS: loaded, then evicted with freed bytes; unknown
    circuit INVALID_ARGUMENT;
  - malformed requests: no `submit`, PROOF_KIND_UNSPECIFIED, a PoRep envelope
    that is not JSON, a PoRep envelope whose SectorSize differs, bytes that are
    not a protobuf message: INVALID_ARGUMENT; SnapDeals / WindowPoSt:
    UNIMPLEMENTED; the daemon keeps serving after each;
  - a 2KiB PoRep C2 proof (C1 from `czk gen-vanilla`, cuzk's envelope JSON
    with base64 Phase1Out) whose bytes `czk verify` accepts, and refuses
    with one byte flipped;
  - daemon.status_listen: GET /status is JSON with the counters, memory,
    workers, partitions and SRS; GET /metrics the same text; 404 and 405;
  - SIGTERM: the daemon exits 0.

Usage: python_client.py CZK_BINARY SOURCE_DIR [KEYS_DIR]
KEYS_DIR defaults to $CZK_CACHE_DIR/test-keys, else ~/.cache/czk/test-keys (where
porep.e2e_keys and scripts/demo.sh keep them). Exit status 0 when every check passes.
"""
import base64
import concurrent.futures
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import grpc
from grpc_tools import protoc

TEST_KIND = 100  # czk's test kind (not in the proto enum)

FAILURES = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def gen_stubs(source_dir, out_dir):
    proto_dir = os.path.join(source_dir, "proto")
    inc = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    rc = protoc.main(["grpc_tools.protoc", "-I" + proto_dir, "-I" + inc,
                      "--python_out=" + out_dir, "--grpc_python_out=" + out_dir,
                      os.path.join(proto_dir, "cuzk/v1/proving.proto")])
    if rc != 0:
        sys.exit("python_client: grpc_tools.protoc failed (%d)" % rc)
    sys.path.insert(0, out_dir)


def code_of(fn):
    """The gRPC status code fn raises (grpc.StatusCode.OK if none)."""
    try:
        fn()
    except grpc.RpcError as e:
        return e.code()
    return grpc.StatusCode.OK


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: python_client.py CZK_BINARY SOURCE_DIR [KEYS_DIR]")
    czk, source_dir = sys.argv[1:3]
    if len(sys.argv) == 4:
        keys = sys.argv[3]
    elif os.environ.get("CZK_CACHE_DIR"):
        keys = os.path.join(os.environ["CZK_CACHE_DIR"], "test-keys")
    elif os.environ.get("HOME"):
        keys = os.path.join(os.environ["HOME"], ".cache/czk/test-keys")
    else:
        keys = "/tmp/czk-test-keys"
    work = tempfile.mkdtemp(prefix="czk-pyclient-")
    daemon = None
    try:
        gen_stubs(source_dir, work)
        from cuzk.v1 import proving_pb2 as pb
        from cuzk.v1 import proving_pb2_grpc as pbg

        with socket.socket() as probe:  # a free port for daemon.status_listen
            probe.bind(("127.0.0.1", 0))
            http_port = probe.getsockname()[1]
        sock = os.path.join(work, "czk.sock")
        addr = "unix://" + sock
        cfg = os.path.join(work, "cuzk.toml")
        with open(cfg, "w") as f:
            f.write('[daemon]\nlisten = "%s"\nstatus_listen = "127.0.0.1:%d"\n'
                    '[srs]\nparam_cache = "%s"\n'
                    '[memory]\ntotal_budget = "6 GiB"\n'
                    '[gpus]\nbackend = "cpu"\ngpu_workers_per_device = 1\nfinalize_workers = 2\n'
                    '[synthesis]\npartition_workers = 2\n'
                    '[logging]\nlevel = "warn"\n' % (addr, http_port, keys))
        log = open(os.path.join(work, "daemon.log"), "w")
        t0 = time.time()
        daemon = subprocess.Popen([czk, "daemon", "--config", cfg], stdout=log, stderr=log)

        opts = [("grpc.max_receive_message_length", 256 << 20),
                ("grpc.max_send_message_length", 256 << 20)]
        chan = grpc.insecure_channel(addr, options=opts)
        grpc.channel_ready_future(chan).result(timeout=30)
        stub = pbg.ProvingEngineStub(chan)

        # ---- GetStatus at once ----
        st = stub.GetStatus(pb.GetStatusRequest(), timeout=5)
        check(time.time() - t0 < 20, "GetStatus answers %.1f s after start" % (time.time() - t0))
        check(len(st.gpus) >= 1, "GetStatus lists the CPU pseudo-device (%d)" % len(st.gpus))
        check(st.total_proofs_completed == 0 and st.total_proofs_failed == 0,
              "counters start at 0")
        completed = 0

        # ---- the PoRep proof runs in the background (keys load, ~1 min of CPU) ----
        c1 = os.path.join(work, "c1.json")
        ids = ["--miner-id", "1000", "--sector-num", "1"]
        subprocess.run([czk, "gen-vanilla", "--sector-size", "2KiB", "--random", "1",
                        "--out", c1] + ids, check=True, stdout=subprocess.DEVNULL)
        with open(c1, "rb") as f:
            c1_bytes = f.read()
        envelope = json.dumps({"SectorNum": 1, "Phase1Out": base64.b64encode(c1_bytes).decode(),
                               "SectorSize": 2048}).encode()
        porep_req = pb.ProveRequest(submit=pb.SubmitProofRequest(
            request_id="porep-1000-1", proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048,
            registered_proof=0, vanilla_proof=envelope, sector_number=1, miner_id=1000))
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=8)
        porep_future = pool.submit(lambda: stub.Prove(porep_req, timeout=600))

        # ---- malformed requests ----
        bad = [
            ("Prove without submit", lambda: stub.Prove(pb.ProveRequest(), timeout=30)),
            ("PROOF_KIND_UNSPECIFIED", lambda: stub.SubmitProof(
                pb.SubmitProofRequest(vanilla_proof=b"x"), timeout=30)),
            ("PoRep envelope not JSON", lambda: stub.SubmitProof(pb.SubmitProofRequest(
                proof_kind=pb.POREP_SEAL_COMMIT, sector_size=2048, vanilla_proof=b"{not json"),
                timeout=30)),
            ("PoRep SectorSize differs from sector_size", lambda: stub.SubmitProof(
                pb.SubmitProofRequest(proof_kind=pb.POREP_SEAL_COMMIT, sector_size=34359738368,
                                      vanilla_proof=envelope, miner_id=1000), timeout=30)),
            ("bytes that are not a protobuf message", lambda: chan.unary_unary(
                "/cuzk.v1.ProvingEngine/SubmitProof", request_serializer=lambda b: b,
                response_deserializer=lambda b: b)(b"\xff\xff\xff\xff\x0f", timeout=30)),
        ]
        for what, fn in bad:
            code = code_of(fn)
            check(code == grpc.StatusCode.INVALID_ARGUMENT, "%s: INVALID_ARGUMENT (%s)" % (what, code))
            check(code_of(lambda: stub.GetStatus(pb.GetStatusRequest(), timeout=10))
                  == grpc.StatusCode.OK, "  ... and the daemon keeps serving")
        for kind in (pb.SNAP_DEALS_UPDATE, pb.WINDOW_POST_PARTITION, pb.WINNING_POST):
            code = code_of(lambda: stub.SubmitProof(pb.SubmitProofRequest(
                proof_kind=kind, vanilla_proofs=[b"x"]), timeout=30))
            check(code == grpc.StatusCode.UNIMPLEMENTED, "kind %d: UNIMPLEMENTED (%s)" % (kind, code))

        # ---- concurrent Prove calls (test kind) ----
        def prove(seed):
            return stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
                proof_kind=TEST_KIND, vanilla_proof=b"seed=%d partitions=2 log=8" % seed)),
                timeout=300)
        futs = [pool.submit(prove, 100 + i) for i in range(4)]
        res = [f.result() for f in futs]
        ok = all(r.result.status == pb.AwaitProofResponse.COMPLETED and len(r.result.proof) == 384
                 for r in res)
        check(ok, "4 concurrent Prove calls COMPLETED, 2 x 192 bytes each (%s)" %
              [(r.result.status, len(r.result.proof), r.result.error_message) for r in res])
        check(len({r.result.proof for r in res}) == 4, "the 4 proofs differ")
        check(all(r.result.total_ms >= r.result.synthesis_ms // 2 for r in res),
              "timings filled (total_ms %s)" % [r.result.total_ms for r in res])
        completed += 4

        # ---- Submit / Await (timeout) / Cancel, status while it runs ----
        sub = stub.SubmitProof(pb.SubmitProofRequest(
            request_id="py-slow", proof_kind=TEST_KIND,
            vanilla_proof=b"seed=7 partitions=3 log=8 synth_ms=20000"), timeout=30)
        check(sub.job_id == "py-slow", "SubmitProof: job_id = request_id (%r)" % sub.job_id)
        t = time.time()
        aw = stub.AwaitProof(pb.AwaitProofRequest(job_id="py-slow", timeout_ms=300), timeout=30)
        dt = time.time() - t
        check(aw.status == pb.AwaitProofResponse.TIMEOUT and 0.25 <= dt < 10,
              "AwaitProof timeout_ms=300: TIMEOUT after %.2f s" % dt)
        seen = None
        for _ in range(100):
            st = stub.GetStatus(pb.GetStatusRequest(), timeout=10)
            q = [x for x in st.queues if x.proof_kind == "test"]
            if q and q[0].pending + q[0].in_progress >= 1:
                seen = q[0]
                break
            time.sleep(0.05)
        check(seen is not None and seen.pending + seen.in_progress <= 3,
              "GetStatus while the job runs: queue 'test' pending %s in_progress %s" %
              ((seen.pending, seen.in_progress) if seen else ("-", "-")))
        can = stub.CancelProof(pb.CancelProofRequest(job_id="py-slow"), timeout=30)
        check(can.was_running, "CancelProof: was_running")
        aw = stub.AwaitProof(pb.AwaitProofRequest(job_id="py-slow", timeout_ms=30000), timeout=60)
        check(aw.status == pb.AwaitProofResponse.CANCELLED, "AwaitProof after cancel: CANCELLED (%s)"
              % aw.status)
        code = code_of(lambda: stub.AwaitProof(pb.AwaitProofRequest(job_id="nope"), timeout=10))
        check(code == grpc.StatusCode.NOT_FOUND, "AwaitProof unknown job: NOT_FOUND (%s)" % code)
        code = code_of(lambda: stub.CancelProof(pb.CancelProofRequest(job_id="nope"), timeout=10))
        check(code == grpc.StatusCode.NOT_FOUND, "CancelProof unknown job: NOT_FOUND (%s)" % code)

        # ---- Submit + Await of a job that completes ----
        sub = stub.SubmitProof(pb.SubmitProofRequest(
            proof_kind=TEST_KIND, vanilla_proof=b"seed=8 partitions=1 log=8"), timeout=30)
        aw = stub.AwaitProof(pb.AwaitProofRequest(job_id=sub.job_id), timeout=300)
        check(aw.status == pb.AwaitProofResponse.COMPLETED and len(aw.proof) == 192,
              "SubmitProof + AwaitProof: COMPLETED, 192 bytes")
        completed += 1

        # ---- a proof that fails: FAILED in the body ----
        r = stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            proof_kind=TEST_KIND, vanilla_proof=b"seed=9 partitions=2 log=8 fail=1")), timeout=300)
        check(r.result.status == pb.AwaitProofResponse.FAILED and r.result.error_message,
              "a failing proof: FAILED with a reason (%r)" % r.result.error_message)
        # the two PoRep payloads the kind refused above count as failed proofs too (as in
        # cuzk, where the engine parses the C1); the requests refused before a job existed
        # (no submit, unspecified kind, not protobuf, unimplemented kinds) do not
        failed = 1 + 2

        # ---- PreloadSRS / EvictSRS ----
        pre = stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="test-9"), timeout=300)
        check(not pre.already_loaded, "PreloadSRS test-9: loaded now")
        pre = stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="test-9"), timeout=300)
        check(pre.already_loaded, "PreloadSRS test-9 again: already_loaded")
        st = stub.GetStatus(pb.GetStatusRequest(), timeout=10)
        srs = {s.circuit_id: s for s in st.loaded_srs}
        x = srs.get("test-9")
        check(x is not None and x.tier == pb.SRSStatus.WARM and x.size_bytes > 0,
              "GetStatus lists test-9, tier WARM (host memory: the CPU backend), with its size (%s)"
              % (str(x).replace("\n", " ") if x else "absent"))
        ev = stub.EvictSRS(pb.EvictSrsRequest(circuit_id="test-9"), timeout=30)
        check(ev.was_loaded and ev.freed_bytes > 0, "EvictSRS test-9: freed %d bytes" % ev.freed_bytes)
        code = code_of(lambda: stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="nope"), timeout=30))
        check(code == grpc.StatusCode.INVALID_ARGUMENT, "PreloadSRS unknown: INVALID_ARGUMENT (%s)" % code)

        # ---- the PoRep proof, verified by czk verify ----
        r = porep_future.result()
        check(r.result.status == pb.AwaitProofResponse.COMPLETED,
              "PoRep 2KiB Prove: COMPLETED (%s %s)" % (r.result.status, r.result.error_message))
        check(len(r.result.proof) > 0 and len(r.result.proof) % 192 == 0,
              "PoRep proof: %d bytes (192 per partition)" % len(r.result.proof))
        completed += 1
        proof = os.path.join(work, "proof.bin")
        with open(proof, "wb") as f:
            f.write(r.result.proof)
        v = subprocess.run([czk, "verify", "--c1", c1, "--proof", proof, "--param-cache", keys] + ids,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check(v.returncode == 0, "czk verify accepts the proof bytes (%d: %s)" %
              (v.returncode, v.stdout.decode(errors="replace").strip()[-200:]))
        flipped = bytearray(r.result.proof)
        flipped[100] ^= 1
        with open(proof, "wb") as f:
            f.write(bytes(flipped))
        v = subprocess.run([czk, "verify", "--c1", c1, "--proof", proof, "--param-cache", keys] + ids,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        check(v.returncode != 0, "czk verify refuses it with one byte flipped (%d)" % v.returncode)

        # ---- GetMetrics: counters equal what ran ----
        m = stub.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        samples = {}
        for line in m.splitlines():
            if line.startswith("#") or not line:
                continue
            k, _, val = line.rpartition(" ")
            samples[k] = float(val)
        check(samples.get("cuzk_proofs_completed_total") == completed,
              "GetMetrics cuzk_proofs_completed_total = %d (%s)" %
              (completed, samples.get("cuzk_proofs_completed_total")))
        check(samples.get("cuzk_proofs_failed_total") == failed,
              "GetMetrics cuzk_proofs_failed_total = %d" % failed)
        check(samples.get('cuzk_proofs_completed{proof_kind="porep_c2"}') == 1,
              "GetMetrics cuzk_proofs_completed{proof_kind=\"porep_c2\"} = 1")
        check(samples.get('czk_proofs_total{proof_kind="porep_c2",status="failed"}') == 2,
              "GetMetrics czk_proofs_total porep_c2 failed = 2 (the refused envelopes)")
        check(samples.get('czk_proofs_total{proof_kind="test",status="cancelled"}') == 1,
              "GetMetrics czk_proofs_total test cancelled = 1")
        check(samples.get('czk_proof_duration_seconds_count{proof_kind="test"}') == completed - 1,
              "GetMetrics czk_proof_duration_seconds_count test = %d" % (completed - 1))
        st = stub.GetStatus(pb.GetStatusRequest(), timeout=10)
        check(st.total_proofs_completed == completed and st.total_proofs_failed == failed,
              "GetStatus counters: %d completed, %d failed" % (st.total_proofs_completed,
                                                               st.total_proofs_failed))

        # ---- daemon.status_listen: GET /status (JSON) and GET /metrics over HTTP ----
        def http_get(path, method="GET"):
            c = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
            try:
                c.request(method, path)
                r = c.getresponse()
                return r.status, r.getheader("Content-Type") or "", r.read()
            finally:
                c.close()
        try:
            code, ctype, body = http_get("/status")
            doc = json.loads(body) if code == 200 else {}
            check(code == 200 and ctype == "application/json"
                  and doc.get("counters", {}).get("proofs_completed") == completed
                  and len(doc.get("workers", [])) == 2 + 1 + 2 and "memory" in doc
                  and isinstance(doc.get("partitions"), list) and isinstance(doc.get("srs"), list),
                  "status_listen GET /status: JSON with counters, memory, workers, partitions, "
                  "SRS (%d %s)" % (code, ctype))
            code, ctype, body = http_get("/metrics")
            check(code == 200 and ("\ncuzk_proofs_completed_total %d\n" % completed) in body.decode(),
                  "status_listen GET /metrics: the GetMetrics text (%d)" % code)
            code, _, _ = http_get("/nope")
            check(code == 404, "status_listen GET /nope: 404 (%d)" % code)
            code, _, _ = http_get("/status", "POST")
            check(code == 405, "status_listen POST /status: 405 (%d)" % code)
        except OSError as e:
            check(False, "status_listen 127.0.0.1:%d answers HTTP (%s)" % (http_port, e))

        chan.close()
        pool.shutdown(wait=False)

        # ---- SIGTERM ----
        daemon.send_signal(signal.SIGTERM)
        try:
            rc = daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            rc = None
        check(rc == 0, "SIGTERM: the daemon exits 0 (%s)" % rc)
        daemon = None
    finally:
        if daemon is not None:
            daemon.kill()
            daemon.wait()
        logp = os.path.join(work, "daemon.log")
        if FAILURES and os.path.exists(logp):
            with open(logp, errors="replace") as f:
                print("---- daemon log (last 40 lines) ----\n" + "".join(f.readlines()[-40:]))
        shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print("python_client: %d check(s) failed" % len(FAILURES))
        return 1
    print("python_client: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
