package pgtest

import (
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Proxy is a TCP proxy in front of the test server that a test can cut: while it is down, the
// database cannot be reached, as in a network partition or while the server restarts, without
// stopping the server that other tests share.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the server of dbURL (a URL from URL) and returns it, with dbURL
// changed to connect through it. The proxy is up; it stops when t ends.
func NewProxy(t testing.TB, dbURL string) (*Proxy, string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatalf("pgtest: proxy: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	through, err := viaProxy(dbURL, port)
	if err != nil {
		t.Fatalf("pgtest: proxy: %v", err)
	}
	return p, through
}

// viaProxy points a URL or keyword/value connection string at 127.0.0.1:port.
func viaProxy(connString, port string) (string, error) {
	if !strings.HasPrefix(connString, "postgres://") && !strings.HasPrefix(connString, "postgresql://") {
		return connString + " host=127.0.0.1 port=" + port, nil
	}
	u, err := url.Parse(connString)
	if err != nil {
		return "", err
	}
	u.Host = net.JoinHostPort("127.0.0.1", port)
	return u.String(), nil
}

// Down breaks every connection through the proxy and refuses new ones (they are closed as soon
// as they are accepted) until Up.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Up lets connections through again.
func (p *Proxy) Up() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.relay(c)
	}
}

func (p *Proxy) relay(c net.Conn) {
	defer p.wg.Done()
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		_ = c.Close()
		_ = s.Close()
		return
	}
	p.conns[c], p.conns[s] = struct{}{}, struct{}{}
	p.mu.Unlock()
	var once sync.Once
	done := func() {
		once.Do(func() {
			_ = c.Close()
			_ = s.Close()
			p.mu.Lock()
			delete(p.conns, c)
			delete(p.conns, s)
			p.mu.Unlock()
		})
	}
	var both sync.WaitGroup
	both.Go(func() { _, _ = io.Copy(s, c); done() })
	both.Go(func() { _, _ = io.Copy(c, s); done() })
	both.Wait()
}

func (p *Proxy) close() {
	err := p.ln.Close()
	p.Down()
	if err == nil || errors.Is(err, net.ErrClosed) {
		p.wg.Wait()
	}
}
