// Package procstat reads what Linux's /proc says about a process: the benchmark and the store's
// cost measurements both need the CPU time of processes they did not start (PostgreSQL's), which
// no portable API offers.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of utime and stime in /proc/<pid>/stat. It is 100 on every Linux
// architecture that Go supports (USER_HZ is fixed at 100 for user space), so it is not read with
// sysconf, which would need cgo.
const clockTicks = 100

// CPU returns the CPU time, user plus system, that process pid has used so far, to the clock tick
// (10 ms). Threads are included; children are not.
func CPU(pid int) (time.Duration, error) {
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
	return time.Duration(utime+stime) * (time.Second / clockTicks), nil
}
