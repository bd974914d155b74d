package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is the unit of utime and stime in /proc/<pid>/stat. It is 100 on every Linux
// architecture that Go supports (USER_HZ is fixed at 100 for user space), so it is not read with
// sysconf, which would need cgo.
const clockTicks = 100

// cpuTime returns the CPU time, user plus system, that process pid has used so far, in
// microseconds. Threads are included; children are not.
func cpuTime(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces; fields are counted after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return (utime + stime) * 1_000_000 / clockTicks, nil
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
