// The kernel protocol for Go kernels (docs/method/protocol.md), mirroring native/harness.c.
//
// The build copies this file beside a kernel's own sources (package main); the
// kernel declares its cases and calls harnessMain. The harness locks the
// goroutine to one OS thread and pins that thread, so the thread whose time
// and context switches are measured is the one doing the work; it times with
// Go's monotonic clock (time.Since), calibrates, verifies after every sample
// and prints JSON lines.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// A case is one way of doing the experiment's operation.
type harnessCase struct {
	Name        string
	Description string
	OpsPerIter  int
	Setup       func(dir string) (any, error) // errSkip wrapped means "cannot run here"
	Run         func(state any, iters int) error
	Verify      func(state any) error
	Teardown    func(state any)
}

// errSkip marks a setup failure that is not an error (a missing feature).
var errSkip = errors.New("skip")

// field is one key of a JSON line. Lines are written in a fixed key order, not
// from a map: encoding/json sorts a map's keys, and how many instructions the sort
// takes depends on Go's randomised map order, which would make two callgrind
// runs of the same kernel differ.
type field struct {
	key   string
	value any
}

func emit(fields ...field) {
	line := []byte{'{'}
	for i, f := range fields {
		if i > 0 {
			line = append(line, ',')
		}
		k, _ := json.Marshal(f.key)
		v, _ := json.Marshal(f.value)
		line = append(append(append(line, k...), ':'), v...)
	}
	os.Stdout.Write(append(line, '}', '\n'))
}

type harnessOptions struct {
	caseName      string
	dir           string
	samples       int
	minSampleNs   int64
	iters         int
	warmupIters   int
	cpu           int
	raisePriority bool
}

func parseOptions(args []string) (harnessOptions, error) {
	o := harnessOptions{samples: 5, minSampleNs: 10_000_000, cpu: -1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--raise-priority" {
			o.raisePriority = true
			continue
		}
		if i+1 >= len(args) {
			return o, fmt.Errorf("missing value for %s", a)
		}
		v := args[i+1]
		i++
		n, err := strconv.ParseInt(v, 10, 64)
		numeric := err == nil && n >= 0
		switch {
		case a == "--case":
			o.caseName = v
		case a == "--dir":
			o.dir = v
		case a == "--samples" && numeric && n > 0:
			o.samples = int(n)
		case a == "--min-sample-ns" && numeric:
			o.minSampleNs = n
		case a == "--iters" && numeric:
			o.iters = int(n)
		case a == "--warmup-iters" && numeric:
			o.warmupIters = int(n)
		case a == "--cpu" && numeric:
			o.cpu = int(n)
		default:
			return o, fmt.Errorf("bad option or value: %s %s", a, v)
		}
	}
	return o, nil
}

// pin sets the affinity of the calling OS thread (the goroutine is locked to it).
func pin(cpu int) (bool, string) {
	if cpu < 0 {
		return false, "not requested"
	}
	var mask [16]uint64
	if cpu >= len(mask)*64 {
		return false, "cpu number too large"
	}
	mask[cpu/64] |= 1 << (uint(cpu) % 64)
	_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, 0, unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if e != 0 {
		return false, "sched_setaffinity: " + e.Error()
	}
	return true, fmt.Sprintf("cpu %d (the locked OS thread)", cpu)
}

func priority(raise bool) string {
	if !raise {
		return "unchanged (not requested)"
	}
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, 0, -10); err != nil {
		return "unchanged (not permitted: " + err.Error() + ")"
	}
	return "nice -10"
}

const rusageThread = 1 // RUSAGE_THREAD: the counts of the calling thread only

// timed is where instruction counting looks: the engine counts Go kernels under callgrind
// only while inside main.timed (--toggle-collect), so it must stay a function of its own.
//
//go:noinline
func timed(c *harnessCase, state any, iters int) (int64, []field, error) {
	var r0, r1 syscall.Rusage
	syscall.Getrusage(rusageThread, &r0)
	t0 := time.Now()
	err := c.Run(state, iters)
	ns := time.Since(t0).Nanoseconds()
	syscall.Getrusage(rusageThread, &r1)
	if err == nil {
		err = c.Verify(state)
	}
	if ns < 1 {
		ns = 1
	}
	return ns, []field{{"case", c.Name}, {"iters", iters}, {"ops", iters * c.OpsPerIter}, {"ns", ns},
		{"csw_vol", r1.Nvcsw - r0.Nvcsw}, {"csw_invol", r1.Nivcsw - r0.Nivcsw}}, err
}

func calibrate(c *harnessCase, state any, minNs int64) (int, error) {
	iters := 1
	for {
		ns, _, err := timed(c, state, iters)
		if err != nil {
			return 0, err
		}
		if ns >= minNs {
			return iters, nil
		}
		factor := 100.0
		if ns > 0 {
			factor = 1.25 * float64(minNs) / float64(ns)
		}
		factor = min(100.0, max(2.0, factor))
		iters = int(float64(iters)*factor) + 1
	}
}

func clockOverheadNs() int64 {
	best := int64(1 << 62)
	for i := 0; i < 2000; i++ {
		a := time.Now()
		// min, not an if: under callgrind a branch taken a timing-dependent number of
		// times would be instructions more in one counting run than in the other.
		best = min(best, time.Since(a).Nanoseconds())
	}
	return best
}

// heapFill keeps growHeapOnce's pages in use, so the fresh ones are what the case gets.
var heapFill [][]byte

// growHeapOnce takes free pages until the runtime has grown the heap once, leaving the
// fresh growth (at least 4 MiB) free. The engine asks for it when it counts instructions
// (with GOGC=off, so the heap only grows): a growth costs some 60,000 instructions (a
// failed search of the page allocator, then mapping), and where the next one falls
// depends on what the runtime allocated before, which varies with timing. After this, a
// counting run that allocates less than the fresh pages never grows inside the timed
// call, and one that allocates more grows at the same points in every run.
func growHeapOnce() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapSys
	for len(heapFill) < 8192 { // 64 MiB at most: a growth is far sooner
		heapFill = append(heapFill, make([]byte, 8192)) // one page each
		runtime.ReadMemStats(&ms)
		if ms.HeapSys > before {
			break
		}
	}
	// Then on to where the P's cache of span structures has just been refilled (the
	// runtime takes 32 at a time, some 4,500 instructions, a jump in MSpanInuse): every
	// page taken here is a new span, and the refill would otherwise fall inside the timed
	// call or not depending on how many spans the runtime made before, which varies too.
	spans := ms.MSpanInuse
	for len(heapFill) < 16384 {
		heapFill = append(heapFill, make([]byte, 8192))
		runtime.ReadMemStats(&ms)
		if ms.MSpanInuse > spans+1024 {
			return
		}
		spans = ms.MSpanInuse
	}
}

func harnessMain(kernel string, cases []harnessCase) {
	runtime.LockOSThread()
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var c *harnessCase
	for i := range cases {
		if cases[i].Name == o.caseName {
			c = &cases[i]
		}
	}
	if c == nil {
		emit(field{"case", o.caseName}, field{"error", "no such case in this kernel"})
		os.Exit(1)
	}
	pinned, pinWhy := pin(o.cpu)
	prio := priority(o.raisePriority)
	state, err := c.Setup(o.dir)
	if err != nil {
		if errors.Is(err, errSkip) {
			// The reason alone, as every harness says it: fmt.Errorf("%w: why", errSkip) reads "skip: why".
			emit(field{"case", c.Name}, field{"skip", strings.TrimPrefix(err.Error(), errSkip.Error()+": ")})
			os.Exit(3)
		}
		emit(field{"case", c.Name}, field{"error", "setup: " + err.Error()})
		os.Exit(1)
	}
	if os.Getenv("LAYERTAX_FRESH_HEAP") == "1" {
		growHeapOnce()
	}
	code := runSamples(kernel, c, state, o, pinned, pinWhy, prio)
	if c.Teardown != nil {
		c.Teardown(state)
	}
	os.Exit(code)
}

func runSamples(kernel string, c *harnessCase, state any, o harnessOptions, pinned bool, pinWhy, prio string) int {
	emit(field{"kernel", kernel}, field{"case", c.Name}, field{"description", c.Description}, field{"language", "go"},
		field{"runtime", runtime.Version()}, field{"compiler", runtime.Compiler},
		field{"clock", "time.Now/time.Since (monotonic)"}, field{"clock_res_ns", 1},
		field{"clock_overhead_ns", clockOverheadNs()}, field{"ops_per_iter", c.OpsPerIter},
		field{"warmup_iters", o.warmupIters}, field{"pinned", pinned}, field{"pin", pinWhy}, field{"priority", prio})
	fail := func(err error) int {
		emit(field{"case", c.Name}, field{"error", err.Error()})
		return 1
	}
	if o.warmupIters > 0 {
		if _, _, err := timed(c, state, o.warmupIters); err != nil {
			return fail(err)
		}
	}
	iters := o.iters
	if iters == 0 {
		var err error
		if iters, err = calibrate(c, state, o.minSampleNs); err != nil {
			return fail(err)
		}
	}
	for i := 0; i < o.samples; i++ {
		_, s, err := timed(c, state, iters)
		if err != nil {
			return fail(err)
		}
		emit(s...)
	}
	return 0
}
