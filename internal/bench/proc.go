package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/omcp/toolfailure/internal/procstat"
)

// cpuTime returns the CPU time, user plus system, that process pid has used so far, in
// microseconds. Threads are included; children are not.
func cpuTime(pid int) (int64, error) {
	d, err := procstat.CPU(pid)
	return d.Microseconds(), err
}

// cpuTimes sums cpuTime over pids, skipping processes that have gone.
func cpuTimes(pids []int) int64 {
	var sum int64
	for _, pid := range pids {
		if t, err := cpuTime(pid); err == nil {
			sum += t
		}
	}
	return sum
}

// memory returns the resident set size and its peak (VmRSS, VmHWM) of pid, in bytes.
func memory(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		kb, perr := strconv.ParseInt(fields[0], 10, 64)
		if perr != nil {
			continue
		}
		switch name {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return rss, peak, nil
}

// isPostgres reports whether pid is a PostgreSQL process on this machine: the CPU of the database
// can only be read when it runs here.
func isPostgres(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return err == nil && strings.HasPrefix(strings.TrimSpace(string(b)), "postgres")
}
