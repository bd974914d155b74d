package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// client is the HTTP client of the load: HTTP/1.1 with keep-alive and one connection per caller,
// which is how most MCP servers call the service (Connect's JSON over HTTP/1.1).
func client(callers int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        callers * 2,
			MaxIdleConnsPerHost: callers * 2,
			MaxConnsPerHost:     callers * 2,
			DisableCompression:  true,
			IdleConnTimeout:     time.Minute,
		},
		Timeout: 30 * time.Second,
	}
}

// result is one measurement of one target under one load.
type result struct {
	requests int
	errors   int
	elapsed  time.Duration
	p50, p99 time.Duration
	firstErr string
}

func (r result) rate() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// drive sends requests from callers goroutines, each waiting for its answer before the next (a
// closed loop, like tool calls), for d, and returns the throughput and latency percentiles.
// Bodies are taken from mix in turn.
func drive(ctx context.Context, c *http.Client, url, key string, mix []string, callers int, d time.Duration) result {
	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, 1<<16)
		errs      atomic.Int64
		firstErr  atomic.Value
		next      atomic.Int64
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	start := time.Now()
	for range callers {
		wg.Go(func() {
			local := make([]time.Duration, 0, 1<<12)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				body := mix[int(next.Add(1))%len(mix)]
				t0 := time.Now()
				err := call(ctx, c, url, key, body)
				local = append(local, time.Since(t0))
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			mu.Unlock()
		})
	}
	wg.Wait()
	r := result{requests: len(latencies), errors: int(errs.Load()), elapsed: time.Since(start)}
	if v, ok := firstErr.Load().(string); ok {
		r.firstErr = v
	}
	r.p50, r.p99 = percentile(latencies, 0.50), percentile(latencies, 0.99)
	return r
}

// call posts one Connect unary JSON request and reads the whole answer.
func call(ctx context.Context, c *http.Client, url, key, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.200s", res.StatusCode, b)
	}
	return nil
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(float64(len(d)-1) * p)
	return d[i]
}
