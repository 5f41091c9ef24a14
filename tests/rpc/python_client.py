#!/usr/bin/python3
"""A gRPC client czk did not write (Debian's python3-grpcio) against a running
`czk daemon` on the CPU backend.

Stubs are generated from proto/cuzk/v1/proving.proto at test time with
grpc_tools.protoc into a temporary directory. The daemon is started here with
a cuzk.toml written here (param_cache = the 2KiB PoRep test keys that
scripts/demo.sh and the porep.e2e_keys fixture make, and the 2KiB PoSt test
keys and vanilla proofs of the rpc.post_inputs fixture, $CZK_TEST_POST_INPUTS,
and the 2KiB SnapDeals test keys of the snap.keys fixture; czk's test kind,
ProofKind 100, for checks where the proof kind does not matter) and stopped
with SIGTERM.

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
    not a protobuf message, a PoSt or SnapDeals blob that is no vanilla
    proof: INVALID_ARGUMENT; the daemon keeps serving after each;
  - WindowPoSt V1 (partition 1, 2 sectors; SubmitProof while a slow job holds
    the synthesis workers: GetStatus names its queue 'window-post', then
    AwaitProof), WindowPoSt V1_2 (partition 3) and WinningPoSt (Prove), 2KiB,
    from the vanilla proofs of the post_2kib_inputs fixture: COMPLETED, 192
    bytes that the fixture's verifier (test_rpc_post_inputs verify, the test
    .vk, public inputs for the request's partition index and API version)
    accepts, and refuses with one byte flipped; a tampered sector refused
    naming the sector, an unmasked randomness refused; per-kind metrics and
    the PoSt circuits in the SRS cache;
  - a 2KiB PoRep C2 proof (C1 from `czk gen-vanilla`, cuzk's envelope JSON
    with base64 Phase1Out) whose bytes `czk verify` accepts, and refuses
    with one byte flipped;
  - SNAP_DEALS_UPDATE, 2KiB, with the fields Curio's ProveUpdateCuzk sets
    (registered update proof 0, the bincode PartitionProof of `czk
    gen-vanilla --snap`, sector number, miner id, comm_r_old, comm_d_new,
    comm_r_new): COMPLETED, 192 bytes that `czk verify --kind snap` accepts
    against the update's commitments and refuses with one byte flipped; the
    partition with one TreeR sibling of challenge 3 changed: INVALID_ARGUMENT
    naming partition 0 and challenge 3, and the daemon keeps serving;
    snap_update metrics and snap-2k in the SRS cache;
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
    post_tool = os.environ.get("CZK_TEST_POST_INPUTS")
    if not post_tool:
        sys.exit("python_client: CZK_TEST_POST_INPUTS (the test_rpc_post_inputs program, its "
                 "fixture) is not set; run through ctest")
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

        # ---- a SnapDeals update runs in the background too (~30 s of CPU) ----
        snap_dir = os.path.join(work, "snap")
        subprocess.run([czk, "gen-vanilla", "--snap", "--sector-size", "2KiB", "--random", "5",
                        "--miner-id", "1000", "--sector-num", "12", "--out-dir", snap_dir],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        snap_req_path = os.path.join(snap_dir, "update.json")
        with open(snap_req_path) as f:
            update = json.load(f)
        with open(os.path.join(snap_dir, update["vanilla_proof_files"][0]), "rb") as f:
            snap_blob = f.read()

        def snap_submit(blobs, request_id=""):
            return pb.SubmitProofRequest(
                request_id=request_id, proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=2048,
                registered_proof=update["registered_proof"], vanilla_proofs=blobs,
                sector_number=12, miner_id=1000,
                comm_r_old=bytes.fromhex(update["comm_r_old"]),
                comm_r_new=bytes.fromhex(update["comm_r_new"]),
                comm_d_new=bytes.fromhex(update["comm_d_new"]))
        snap_future = pool.submit(lambda: stub.Prove(pb.ProveRequest(
            submit=snap_submit([snap_blob], "snap-1000-12")), timeout=600))

        # ---- the PoSt requests of the post_2kib_inputs fixture (tests/rpc/post_inputs.c) ----
        post_dir = os.path.join(keys, "post-2KiB-inputs")
        with open(os.path.join(post_dir, "manifest.json")) as f:
            manifest = json.load(f)
        post_rnd = bytes.fromhex(manifest["randomness"])
        post = {}
        for q in manifest["requests"]:
            blobs = []
            for name in q["blobs"]:
                with open(os.path.join(post_dir, name), "rb") as f:
                    blobs.append(f.read())
            post[q["name"]] = (q, blobs)

        def post_submit(name, blobs=None, randomness=None, request_id=""):
            q, b = post[name]
            return pb.SubmitProofRequest(
                request_id=request_id, proof_kind=q["proof_kind"], sector_size=q["sector_size"],
                registered_proof=q["registered_proof"], miner_id=1000,
                randomness=post_rnd if randomness is None else randomness,
                partition_index=q["partition_index"], vanilla_proofs=b if blobs is None else blobs)

        def post_verify(name, proof_bytes):
            """The fixture's verifier: 0 when the bytes verify with the request's inputs."""
            path = os.path.join(work, "post-%s.proof" % name)
            with open(path, "wb") as f:
                f.write(proof_bytes)
            r = subprocess.run([post_tool, "verify", name, path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            return r.returncode, r.stdout.decode(errors="replace").strip()

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
        try:
            stub.SubmitProof(snap_submit([b"x"]), timeout=30)
            code, msg = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            code, msg = e.code(), e.details()
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "partition 0" in msg,
              "SnapDeals with a blob that is no PartitionProof: INVALID_ARGUMENT naming partition "
              "0 (%s: %s)" % (code, msg))
        for kind, rp in ((pb.WINDOW_POST_PARTITION, 5), (pb.WINNING_POST, 0)):
            code = code_of(lambda: stub.SubmitProof(pb.SubmitProofRequest(
                proof_kind=kind, registered_proof=rp, randomness=post_rnd,
                vanilla_proofs=[b"x"]), timeout=30))
            check(code == grpc.StatusCode.INVALID_ARGUMENT,
                  "kind %d with a blob that is no vanilla proof: INVALID_ARGUMENT (%s)" % (kind, code))

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
        # a WindowPoSt partition (HIGH) waits for a synthesis worker: its queue is named
        wd = stub.SubmitProof(post_submit("window-v1", request_id="wdpost-1000-1-py"), timeout=60)
        seen = None
        for _ in range(100):
            st = stub.GetStatus(pb.GetStatusRequest(), timeout=10)
            q = [x for x in st.queues if x.proof_kind == "window-post"]
            if q and q[0].pending + q[0].in_progress == 1:
                seen = q[0]
                break
            time.sleep(0.05)
        check(seen is not None, "GetStatus: queue 'window-post' holds the WindowPoSt partition")
        can = stub.CancelProof(pb.CancelProofRequest(job_id="py-slow"), timeout=30)
        check(can.was_running, "CancelProof: was_running")
        aw = stub.AwaitProof(pb.AwaitProofRequest(job_id="py-slow", timeout_ms=30000), timeout=60)
        check(aw.status == pb.AwaitProofResponse.CANCELLED, "AwaitProof after cancel: CANCELLED (%s)"
              % aw.status)
        aw = stub.AwaitProof(pb.AwaitProofRequest(job_id=wd.job_id, timeout_ms=300000), timeout=330)
        check(wd.job_id == "wdpost-1000-1-py" and aw.status == pb.AwaitProofResponse.COMPLETED
              and len(aw.proof) == 192,
              "WindowPoSt V1 partition 1 (2 sectors): COMPLETED, 192 bytes (%s %r)"
              % (aw.status, aw.error_message))
        rc, out = post_verify("window-v1", aw.proof)
        check(rc == 0, "  ... verified against the test .vk with partition 1's inputs (%s)" % out)
        completed += 1

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
        # ---- WindowPoSt V1_2 and WinningPoSt through Prove, verified; refusals ----
        for name, kind in (("window-v1_2", "WindowPoSt V1_2 partition 3"),
                           ("winning", "WinningPoSt")):
            r = stub.Prove(pb.ProveRequest(submit=post_submit(name)), timeout=300)
            check(r.result.status == pb.AwaitProofResponse.COMPLETED and len(r.result.proof) == 192,
                  "%s: COMPLETED, 192 bytes (%s %r)" % (kind, r.result.status,
                                                        r.result.error_message))
            rc, out = post_verify(name, r.result.proof)
            check(rc == 0, "  ... verified against the test .vk (%s)" % out)
            flipped = bytearray(r.result.proof)
            flipped[100] ^= 1
            rc, out = post_verify(name, bytes(flipped))
            check(rc == 1, "  ... and not with one byte flipped (%d: %s)" % (rc, out))
            completed += 1
        q, blobs = post["window-v1"]
        bad = bytearray(blobs[1])
        bad[len(bad) - 264] ^= 1  # a sibling hash of sector 9's last inclusion proof
        try:
            stub.Prove(pb.ProveRequest(submit=post_submit("window-v1", [blobs[0], bytes(bad)])),
                       timeout=60)
            code, msg = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            code, msg = e.code(), e.details()
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "sector 9" in msg,
              "WindowPoSt with sector 9's vanilla proof tampered: INVALID_ARGUMENT naming "
              "sector 9 (%s: %s)" % (code, msg))
        unmasked = bytearray(post_rnd)
        unmasked[31] |= 0xc0
        try:
            stub.Prove(pb.ProveRequest(submit=post_submit("window-v1", randomness=bytes(unmasked))),
                       timeout=60)
            code, msg = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            code, msg = e.code(), e.details()
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "randomness" in msg,
              "WindowPoSt with the randomness unmasked: INVALID_ARGUMENT (%s: %s)" % (code, msg))
        check(code_of(lambda: stub.GetStatus(pb.GetStatusRequest(), timeout=10))
              == grpc.StatusCode.OK, "  ... and the daemon keeps serving")
        # a SnapDeals partition tampered: the bincode layout of a 2KiB PartitionProof (spec
        # post-snap.md §3): comm_c, 8 apex leafs, 10 ChallengeProofs of a Single TreeR proof
        # (tag, root, leaf, 2 path elements of 7 hashes and an index), a Single TreeD proof (6
        # elements of 1 hash) and another TreeR; the low byte of challenge 3's proof_r_new's
        # first sibling changes (still a canonical Fr)
        tree_r, tree_d = 4 + 32 + 32 + 8 + 2 * (8 + 7 * 32 + 8), 4 + 32 + 32 + 8 + 6 * 48
        head, per = 32 + 8 + 8 * 32 + 8, 2 * tree_r + tree_d
        check(len(snap_blob) == head + 10 * per, "the 2KiB PartitionProof has %d bytes (%d)"
              % (head + 10 * per, len(snap_blob)))
        bad = bytearray(snap_blob)
        bad[head + 3 * per + tree_r + tree_d + 4 + 32 + 32 + 8 + 8] ^= 1
        try:
            stub.Prove(pb.ProveRequest(submit=snap_submit([bytes(bad)])), timeout=60)
            code, msg = grpc.StatusCode.OK, ""
        except grpc.RpcError as e:
            code, msg = e.code(), e.details()
        check(code == grpc.StatusCode.INVALID_ARGUMENT and "partition 0" in msg
              and "challenge 3" in msg,
              "SnapDeals with partition 0 tampered: INVALID_ARGUMENT naming partition 0 and "
              "challenge 3 (%s: %s)" % (code, msg))
        r = stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            proof_kind=TEST_KIND, vanilla_proof=b"seed=10 partitions=1 log=8")), timeout=300)
        check(r.result.status == pb.AwaitProofResponse.COMPLETED,
              "  ... and the daemon keeps serving: a test proof COMPLETED after it (%s)"
              % r.result.status)
        completed += 1

        # the two PoRep payloads and the four PoSt requests the kinds refused above count as
        # failed proofs too (as in cuzk, where the engine parses the C1); the requests refused
        # before a job existed (no submit, unspecified kind, not protobuf, unimplemented kinds)
        # do not
        # and the two SnapDeals requests
        failed = 1 + 2 + 4 + 2

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

        # ---- the SnapDeals proof, verified by czk verify --kind snap ----
        r = snap_future.result()
        check(r.result.status == pb.AwaitProofResponse.COMPLETED and len(r.result.proof) == 192,
              "SnapDeals 2KiB Prove: COMPLETED, 1 x 192 bytes (%s %d %r)" %
              (r.result.status, len(r.result.proof), r.result.error_message))
        completed += 1
        snap_proof = os.path.join(work, "snap.proof")
        for flip, want, what in ((False, 0, "accepts the proof bytes"),
                                 (True, 1, "refuses them with one byte flipped")):
            b = bytearray(r.result.proof)
            if flip:
                b[100] ^= 1
            with open(snap_proof, "wb") as f:
                f.write(bytes(b))
            v = subprocess.run([czk, "verify", "--kind", "snap", "--request", snap_req_path,
                                "--proof", snap_proof, "--param-cache", keys],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            check(v.returncode == want, "czk verify --kind snap %s (%d: %s)" %
                  (what, v.returncode, v.stdout.decode(errors="replace").strip()[-200:]))

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
        check(samples.get('czk_proof_duration_seconds_count{proof_kind="test"}') == completed - 5,
              "GetMetrics czk_proof_duration_seconds_count test = %d" % (completed - 5))
        check(samples.get('cuzk_proofs_completed{proof_kind="snap_update"}') == 1
              and samples.get('czk_proofs_total{proof_kind="snap_update",status="failed"}') == 2,
              "GetMetrics cuzk_proofs_completed snap_update = 1, czk_proofs_total snap_update "
              "failed = 2")
        check(samples.get('cuzk_proofs_completed{proof_kind="window_post"}') == 2
              and samples.get('cuzk_proofs_completed{proof_kind="winning_post"}') == 1,
              "GetMetrics cuzk_proofs_completed window_post = 2, winning_post = 1")
        check(samples.get('czk_proofs_total{proof_kind="window_post",status="failed"}') == 3
              and samples.get('czk_proofs_total{proof_kind="winning_post",status="failed"}') == 1,
              "GetMetrics czk_proofs_total window_post failed = 3, winning_post failed = 1")
        srs = {x.circuit_id for x in stub.GetStatus(pb.GetStatusRequest(), timeout=10).loaded_srs}
        check({"wpost-2k", "winning-2k", "porep-2k", "snap-2k"} <= srs,
              "GetStatus: wpost-2k, winning-2k and snap-2k in the SRS cache beside porep-2k (%s)"
              % sorted(srs))
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
