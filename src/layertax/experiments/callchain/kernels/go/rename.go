// callchain: one file renamed to a second name and back through Go's layers:
// os.Rename (which lstat's the target first, to refuse renaming onto a
// directory) and syscall.Rename (the bare wrapper; renameat on x86-64).
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

var marker = []byte("layertax callchain marker\n")

type pair struct {
	a, b  string
	inode uint64
}

func setupPair(dir string) (any, error) {
	if dir == "" {
		return nil, fmt.Errorf("--dir is required: rename cases work only in a private directory")
	}
	p := &pair{a: filepath.Join(dir, "layertax-file-a"), b: filepath.Join(dir, "layertax-file-b")}
	f, err := os.OpenFile(p.a, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(marker)
	f.Close()
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Stat(p.a, &st); err != nil {
		return nil, err
	}
	p.inode = st.Ino
	if _, err := os.Lstat(p.b); err == nil {
		return nil, fmt.Errorf("%s already exists", p.b)
	}
	return p, nil
}

func verifyPair(state any) error {
	p := state.(*pair)
	var st syscall.Stat_t
	if err := syscall.Stat(p.a, &st); err != nil {
		return fmt.Errorf("after the loop %s is missing: %v", p.a, err)
	}
	if st.Ino != p.inode {
		return fmt.Errorf("%s is a different file", p.a)
	}
	if _, err := os.Lstat(p.b); err == nil {
		return fmt.Errorf("after the loop %s still exists", p.b)
	}
	data, err := os.ReadFile(p.a)
	if err != nil || !bytes.Equal(data, marker) {
		return fmt.Errorf("%s lost its contents", p.a)
	}
	return nil
}

func teardownPair(state any) {
	p := state.(*pair)
	os.Remove(p.a)
	os.Remove(p.b)
}

func runOsRename(state any, n int) error {
	p := state.(*pair)
	for i := 0; i < n; i++ {
		if err := os.Rename(p.a, p.b); err != nil {
			return err
		}
		if err := os.Rename(p.b, p.a); err != nil {
			return err
		}
	}
	return nil
}

func runSyscallRename(state any, n int) error {
	p := state.(*pair)
	for i := 0; i < n; i++ {
		if err := syscall.Rename(p.a, p.b); err != nil {
			return fmt.Errorf("a -> b: %v", err)
		}
		if err := syscall.Rename(p.b, p.a); err != nil {
			return fmt.Errorf("b -> a: %v", err)
		}
	}
	return nil
}

func main() {
	harnessMain("callchain-rename-go", []harnessCase{
		{"go-os-rename", "os.Rename: lstat of the target, then renameat", 2, setupPair, runOsRename, verifyPair, teardownPair},
		{"go-syscall-rename", "syscall.Rename: the bare system-call wrapper", 2, setupPair, runSyscallRename, verifyPair, teardownPair},
	})
}
