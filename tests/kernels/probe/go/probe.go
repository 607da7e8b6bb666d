// The probe kernel in Go (tests/test_protocol_conformance.py): "count" counts and checks its
// count, "wrong" is always off by one and must be refused, "skip" cannot run here.
package main

import "fmt"

type counter struct{ n, expect int }

func setupCount(dir string) (any, error) { return &counter{}, nil }

func runCount(state any, iters int) error {
	c := state.(*counter)
	for i := 0; i < iters; i++ {
		c.n++
	}
	c.expect += iters
	return nil
}

func verifyCount(state any) error {
	c := state.(*counter)
	if c.n != c.expect {
		return fmt.Errorf("wrong result: expected %d, got %d", c.expect, c.n)
	}
	return nil
}

func runWrong(state any, iters int) error {
	c := state.(*counter)
	runCount(c, iters)
	c.n--
	return nil
}

func setupSkip(dir string) (any, error) { return nil, fmt.Errorf("%w: feature X is not available here", errSkip) }

func teardown(state any) {}

func main() {
	harnessMain("probe-go", []harnessCase{
		{"count", "counts to iters and checks the count", 3, setupCount, runCount, verifyCount, teardown},
		{"wrong", "always one short: a wrong answer", 1, setupCount, runWrong, verifyCount, teardown},
		{"skip", "cannot run here", 1, setupSkip, runCount, verifyCount, teardown},
	})
}
