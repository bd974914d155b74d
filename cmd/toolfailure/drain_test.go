package main

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"

	connectv1 "connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/servicetest"
	"github.com/omcp/toolfailure/server"
)

// TestDrainFailsGRPCHealth wires a drain into a real server as serve does and asks it over gRPC
// (HTTP/2 without TLS, as a Kubernetes grpc probe or a gRPC balancer asks): grpc.health.v1 says
// SERVING until the drain begins and NOT_SERVING from then on, for the whole server and for each
// of its services, while /readyz turns 503 at the same moment.
func TestDrainFailsGRPCHealth(t *testing.T) {
	var dr drain
	h, err := server.New(server.Config{Store: servicetest.Embedded(t), Draining: dr.draining.Load})
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	srv := server.NewHTTPServer(dr.readiness(h), slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	base := "http://" + ln.Addr().String()

	services := []string{"", toolfailurev1connect.ClassifierServiceName, toolfailurev1connect.FailureServiceName, toolfailurev1connect.RuleServiceName}
	check := func(want grpchealth.Status) {
		t.Helper()
		for _, svc := range services {
			// A connection of its own for each call: once the drain has
			// begun, the server sends GOAWAY on the connections it has,
			// and a call written on one just then cannot be retried.
			tr := &http.Transport{Protocols: new(http.Protocols)}
			tr.Protocols.SetUnencryptedHTTP2(true)
			health := grpchealth.NewClient(&http.Client{Transport: tr}, base, connectv1.WithGRPC())
			res, err := health.Check(t.Context(), &grpchealth.CheckRequest{Service: svc})
			tr.CloseIdleConnections()
			if err != nil {
				t.Fatalf("grpc.health.v1 Check(%q): %v", svc, err)
			}
			if res.Status != want {
				t.Errorf("grpc.health.v1 Check(%q) = %v, want %v", svc, res.Status, want)
			}
		}
	}
	readyz := func() int {
		t.Helper()
		res, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatalf("GET /readyz: %v", err)
		}
		_ = res.Body.Close()
		return res.StatusCode
	}

	check(grpchealth.StatusServing)
	if code := readyz(); code != http.StatusOK {
		t.Fatalf("GET /readyz before the drain: %d, want 200", code)
	}
	dr.begin(srv)
	check(grpchealth.StatusNotServing)
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz while draining: %d, want 503", code)
	}
}
