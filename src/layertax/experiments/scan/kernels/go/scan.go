// scan, Go: File.Read into 64 KiB with a byte loop, File.Read 1 MiB with
// bytes.Count four times (the standard library's SIMD counter), and the
// idiomatic bufio.Scanner line loop.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

type input struct {
	f      *os.File
	size   int64
	expect uint64
	got    uint64
	buf    []byte
}

func setupWith(block int) func(string) (any, error) {
	return func(string) (any, error) {
		path := os.Getenv("LAYERTAX_SCAN_FILE")
		if path == "" {
			return nil, fmt.Errorf("LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`")
		}
		size, err1 := strconv.ParseInt(os.Getenv("LAYERTAX_SCAN_BYTES"), 10, 64)
		expect, err2 := strconv.ParseUint(os.Getenv("LAYERTAX_SCAN_COUNT"), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("LAYERTAX_SCAN_BYTES or LAYERTAX_SCAN_COUNT is not a number")
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err != nil || st.Size() != size {
			f.Close()
			return nil, fmt.Errorf("%s changed size", path)
		}
		return &input{f: f, size: size, expect: expect, buf: make([]byte, block)}, nil
	}
}

func rewind(in *input) error {
	_, err := in.f.Seek(0, io.SeekStart)
	return err
}

// passes reads the whole file iters times in blocks of the input's buffer size, counting
// each block with count: the loop every read(2)-based case shares.
func passes(in *input, iters int, count func(block []byte) uint64) error {
	for i := 0; i < iters; i++ {
		if err := rewind(in); err != nil {
			return err
		}
		var n uint64
		for {
			got, err := in.f.Read(in.buf)
			n += count(in.buf[:got])
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		in.got = n
	}
	return nil
}

func runRead(state any, iters int) error {
	return passes(state.(*input), iters, func(block []byte) uint64 {
		var n uint64
		for _, b := range block {
			switch b {
			case 'c', 'C', 'g', 'G':
				n++
			}
		}
		return n
	})
}

var letters = [][]byte{[]byte("C"), []byte("G"), []byte("c"), []byte("g")}

func runBytesCount(state any, iters int) error {
	return passes(state.(*input), iters, func(block []byte) uint64 {
		var n uint64
		for _, l := range letters {
			n += uint64(bytes.Count(block, l))
		}
		return n
	})
}

func runScanner(state any, iters int) error {
	in := state.(*input)
	for i := 0; i < iters; i++ {
		if err := rewind(in); err != nil {
			return err
		}
		var n uint64
		sc := bufio.NewScanner(in.f)
		// The default refuses lines over 64 KiB ("token too long"); a user's file may have them.
		sc.Buffer(make([]byte, 64<<10), int(in.size)+1)
		for sc.Scan() {
			for _, b := range sc.Bytes() {
				switch b {
				case 'c', 'C', 'g', 'G':
					n++
				}
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
		in.got = n
	}
	return nil
}

func verify(state any) error {
	in := state.(*input)
	if in.got != in.expect {
		return fmt.Errorf("counted %d C/G/c/g bytes, expected %d", in.got, in.expect)
	}
	return nil
}

func teardown(state any) { state.(*input).f.Close() }

func main() {
	harnessMain("scan-go", []harnessCase{
		{"go-read", "File.Read 64 KiB, range loop with a switch", 1, setupWith(64 << 10), runRead, verify, teardown},
		{"go-bytes-count", "File.Read 1 MiB, bytes.Count x4 (SIMD in the standard library)", 1, setupWith(1 << 20),
			runBytesCount, verify, teardown},
		{"go-scanner", "bufio.Scanner lines (64 KiB buffer, grown for longer lines), range loop", 1, setupWith(0), runScanner, verify, teardown},
	})
}
