// A gRPC client of cuzk.v1.ProvingEngine on grpc-go (the library Curio's
// cuzk client uses), with stubs generated from proto/cuzk/v1/proving.proto
// by protoc-gen-go and protoc-gen-go-grpc at test time (run.sh). It talks to
// a running `czk daemon` and checks, as Curio would see them:
//   - GetStatus answers (GPUs listed, counters readable);
//   - Prove (czk's test kind, ProofKind 100, 2 partitions): COMPLETED with
//     2 × 192 proof bytes; two concurrent Prove calls both complete with
//     different proofs;
//   - GetStatus afterwards counts those proofs;
//   - Prove with PROOF_KIND_UNSPECIFIED and Prove without `submit`:
//     INVALID_ARGUMENT, and the daemon keeps serving;
//   - a 50 MB request passes the daemon's receive limit (it is refused as
//     a payload, INVALID_ARGUMENT or FAILED, never RESOURCE_EXHAUSTED).
//
// Usage: go_client ADDR   (unix:///path/to.sock or host:port)
// Exit 0 when every check passes; each failure is printed.
package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	pb "czktest/cuzkv1"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const testKind = pb.ProofKind(100) // czk's test kind (not in the proto enum)

var failures int

func check(ok bool, format string, args ...interface{}) {
	if !ok {
		failures++
		fmt.Printf("FAIL: "+format+"\n", args...)
	} else {
		fmt.Printf("ok:   "+format+"\n", args...)
	}
}

func dial(addr string) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(256<<20), grpc.MaxCallSendMsgSize(256<<20)),
	}
	target := addr
	if strings.HasPrefix(addr, "unix://") {
		path := strings.TrimPrefix(addr, "unix://")
		target = "passthrough:///unix"
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return grpc.DialContext(ctx, target, append(opts, grpc.WithBlock())...)
}

func prove(c pb.ProvingEngineClient, seed int) (*pb.AwaitProofResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	r, err := c.Prove(ctx, &pb.ProveRequest{Submit: &pb.SubmitProofRequest{
		ProofKind:    testKind,
		VanillaProof: []byte(fmt.Sprintf("seed=%d partitions=2 log=8", seed)),
	}})
	if err != nil {
		return nil, err
	}
	return r.GetResult(), nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Println("usage: go_client ADDR")
		os.Exit(2)
	}
	conn, err := dial(os.Args[1])
	if err != nil {
		fmt.Printf("FAIL: dial %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	defer conn.Close()
	c := pb.NewProvingEngineClient(conn)
	ctx := context.Background()

	st, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	check(err == nil, "GetStatus answers (%v)", err)
	before := uint64(0)
	if err == nil {
		check(len(st.GetGpus()) >= 1, "GetStatus lists %d device(s)", len(st.GetGpus()))
		before = st.GetTotalProofsCompleted()
	}

	r, err := prove(c, 501)
	check(err == nil && r.GetStatus() == pb.AwaitProofResponse_COMPLETED,
		"Prove (test kind) COMPLETED (err %v, status %v %s)", err, r.GetStatus(), r.GetErrorMessage())
	check(err == nil && len(r.GetProof()) == 2*192, "Prove: 2 × 192 proof bytes (%d)", len(r.GetProof()))

	var wg sync.WaitGroup
	res := make([]*pb.AwaitProofResponse, 2)
	errs := make([]error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i], errs[i] = prove(c, 600+i)
		}(i)
	}
	wg.Wait()
	for i := 0; i < 2; i++ {
		check(errs[i] == nil && res[i].GetStatus() == pb.AwaitProofResponse_COMPLETED &&
			len(res[i].GetProof()) == 384, "concurrent Prove %d COMPLETED (err %v)", i, errs[i])
	}
	if errs[0] == nil && errs[1] == nil {
		check(!bytes.Equal(res[0].GetProof(), res[1].GetProof()), "concurrent proofs differ")
	}

	st, err = c.GetStatus(ctx, &pb.GetStatusRequest{})
	check(err == nil && st.GetTotalProofsCompleted() >= before+3,
		"GetStatus counts the 3 proofs (%d -> %d, err %v)", before, st.GetTotalProofsCompleted(), err)

	_, err = c.Prove(ctx, &pb.ProveRequest{Submit: &pb.SubmitProofRequest{}})
	check(status.Code(err) == codes.InvalidArgument, "PROOF_KIND_UNSPECIFIED: INVALID_ARGUMENT (%v)", err)
	_, err = c.Prove(ctx, &pb.ProveRequest{})
	check(status.Code(err) == codes.InvalidArgument, "Prove without submit: INVALID_ARGUMENT (%v)", err)

	big := bytes.Repeat([]byte("x"), 50<<20)
	br, err := c.Prove(ctx, &pb.ProveRequest{Submit: &pb.SubmitProofRequest{
		ProofKind: testKind, VanillaProof: big}})
	code := status.Code(err)
	check(code == codes.InvalidArgument || (err == nil && br.GetResult().GetStatus() == pb.AwaitProofResponse_FAILED),
		"50 MB request received and refused as a payload (code %v)", code)

	_, err = c.GetStatus(ctx, &pb.GetStatusRequest{})
	check(err == nil, "the daemon keeps serving (%v)", err)

	if failures > 0 {
		fmt.Printf("go_client: %d check(s) failed\n", failures)
		os.Exit(1)
	}
	fmt.Println("go_client: all checks passed")
}
