// Package pgcluster starts a private, throwaway PostgreSQL server for tests that must do to a
// database what no shared server may suffer: stop it hard in the middle of a load and start it
// again. It uses the server binaries of the machine's PostgreSQL packages (initdb and pg_ctl,
// looked up on PATH and under /usr/lib/postgresql/*/bin), a fresh data directory and a free port,
// and removes everything when the test ends.
//
// PostgreSQL refuses to run as root, so when the test runs as root the cluster runs as the user
// "postgres" (or "nobody"), which is why the data directory is not under t.TempDir: that one is
// private to root.
package pgcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Cluster is one running PostgreSQL server.
type Cluster struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	cred *syscall.Credential
}

// Start initialises and starts a cluster, or skips t when no PostgreSQL server binaries are
// installed. The cluster is stopped and deleted when t ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c := newCluster(t)
	if out, err := c.run("initdb", "-D", c.dir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"); err != nil {
		t.Fatalf("pgcluster: initdb: %v\n%s", err, out)
	}
	c.Restart()
	return c
}

// StartReplica starts a streaming replica of primary: a base backup taken with pg_basebackup
// (-R writes the standby settings, -X stream carries the WAL written during the backup), started
// on a port of its own. It is read-only and follows the primary until it is stopped; it is
// stopped and deleted when t ends.
func StartReplica(t testing.TB, primary *Cluster) *Cluster {
	t.Helper()
	c := newCluster(t)
	if out, err := c.run("pg_basebackup", "-D", c.dir, "-h", "127.0.0.1", "-p", strconv.Itoa(primary.port),
		"-U", "postgres", "-X", "stream", "-R", "--no-sync", "-c", "fast"); err != nil {
		t.Fatalf("pgcluster: pg_basebackup: %v\n%s", err, out)
	}
	c.Restart()
	return c
}

// newCluster picks the binaries, a data directory and a port, and arranges the clean-up.
func newCluster(t testing.TB) *Cluster {
	t.Helper()
	bin := findBin()
	if bin == "" {
		t.Skip("pgcluster: no PostgreSQL server binaries (initdb, pg_ctl) found")
	}
	base, err := os.MkdirTemp("", "pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, dir: filepath.Join(base, "data"), port: freePort(t)}
	if os.Geteuid() == 0 {
		c.cred = unprivileged(t)
		if err := os.Chown(base, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = c.pgctl("stop", "-m", "immediate")
		_ = os.RemoveAll(base)
	})
	return c
}

// URL is the cluster's database URL (database postgres, user postgres, no password).
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// Port is the TCP port that the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// StopImmediate stops the server the hard way (pg_ctl stop -m immediate): every backend is killed
// at once, nothing is checkpointed, and the next start runs crash recovery, as after a power cut
// of the database host.
func (c *Cluster) StopImmediate() {
	c.t.Helper()
	if err := c.pgctl("stop", "-m", "immediate"); err != nil {
		c.t.Fatalf("pgcluster: stop: %v", err)
	}
}

// Restart starts the (stopped) server and waits until it accepts connections.
func (c *Cluster) Restart() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=50", c.port)
	if err := c.pgctl("start", "-w", "-t", "60", "-l", filepath.Join(filepath.Dir(c.dir), "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(filepath.Dir(c.dir), "log"))
		c.t.Fatalf("pgcluster: start: %v\n%s", err, log)
	}
}

func (c *Cluster) pgctl(args ...string) error {
	out, err := c.run("pg_ctl", append([]string{"-D", c.dir}, args...)...)
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = filepath.Dir(c.dir)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd.CombinedOutput()
}

// findBin returns the directory of initdb and pg_ctl: PATH first, then the newest version under
// /usr/lib/postgresql, where Debian installs them off PATH.
func findBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			// A link on PATH points into the version's own directory, which also holds
			// pg_basebackup and the rest; the link's directory may hold only some of them.
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// unprivileged returns the credentials of a user that PostgreSQL agrees to run as.
func unprivileged(t testing.TB) *syscall.Credential {
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	t.Skip("pgcluster: running as root and there is no user postgres or nobody to run PostgreSQL as")
	return nil
}

// freePort asks the kernel for a free TCP port. Another process could take it before PostgreSQL
// does; that shows up as a failed start, not as a wrong test result.
func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := strings.Cut(ln.Addr().String(), ":")
	n, _ := strconv.Atoi(port)
	return n
}
