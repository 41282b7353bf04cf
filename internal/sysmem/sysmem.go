// Package sysmem tells how much memory this process may use, and formats
// byte counts: the one place the command line's memory checks and package
// infer's exact-elimination budget read them from.
package sysmem

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Total returns the memory available to this process: the cgroup (v2,
// then v1) limit if there is one, else the machine's total memory; 0 if
// neither can be read.
func Total() float64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(p); err == nil {
			if v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && v > 0 && v < 1<<60 {
				return v
			}
		}
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && fields[0] == "MemTotal:" {
			if v, err := strconv.ParseFloat(fields[1], 64); err == nil {
				return v * 1024
			}
		}
	}
	return 0
}

// String formats a number of bytes in powers of 1024: "512 MB", "3.2 GB".
func String(b float64) string {
	for _, u := range []string{"B", "KB", "MB", "GB", "TB"} {
		if b < 1024 || u == "TB" {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1024
	}
	return ""
}
