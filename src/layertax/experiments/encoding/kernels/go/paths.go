// encoding: Go's path calls, the control group. Go strings are bytes, so
// nothing is transcoded; what the os package adds over the bare syscall
// wrapper is measured instead: os.Getwd stats "." and $PWD before it calls
// getcwd, os.Stat and os.Readlink wrap the result and retry on EINTR.
// The names match classic.c and encoding_py.py (ASCII and non-ASCII).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

var names = map[bool][3]string{
	false: {"workdir-ascii", "target-file.bin", "link-name"},
	true:  {"工作目录-каталог-é", "目标文件-цель.bin", "链接-ссылка"},
}

type place struct {
	home, target, link, oldCwd string
	cwd, got                   string
	st                         syscall.Stat_t
	fi                         os.FileInfo
}

func setupPlace(nonascii bool) func(string) (any, error) {
	return func(dir string) (any, error) {
		if dir == "" {
			return nil, fmt.Errorf("--dir is required: the cases create a directory to stand in")
		}
		n := names[nonascii]
		old, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		home := filepath.Join(dir, n[0])
		if err := os.Mkdir(home, 0o700); err != nil {
			return nil, err
		}
		if err := os.Chdir(home); err != nil {
			return nil, err
		}
		real, err := filepath.EvalSymlinks(home)
		if err != nil {
			return nil, err
		}
		p := &place{home: real, target: filepath.Join(real, n[1]), link: n[2], oldCwd: old}
		f, err := os.OpenFile(p.target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		f.Close()
		if err := os.Symlink(p.target, p.link); err != nil {
			return nil, err
		}
		return p, nil
	}
}

// withPwd: the same place, with $PWD naming it, as a shell sets it for a program it starts
// (os.Chdir does not update $PWD, so setupPlace alone leaves it stale, as in a Go program
// that changed directory). os.Getwd then returns $PWD after its two stats, without getcwd.
func withPwd(setup func(string) (any, error)) func(string) (any, error) {
	return func(dir string) (any, error) {
		state, err := setup(dir)
		if err == nil {
			err = os.Setenv("PWD", state.(*place).home)
		}
		return state, err
	}
}

func leave(state any) {
	p := state.(*place)
	os.Remove(filepath.Join(p.home, p.link))
	os.Remove(p.target)
	os.Chdir(p.oldCwd)
	os.Remove(p.home)
}

func verifyCwd(state any) error {
	p := state.(*place)
	if p.cwd != p.home {
		return fmt.Errorf("getcwd gave %q, not %q", p.cwd, p.home)
	}
	return nil
}

func verifyOsStat(state any) error {
	p := state.(*place)
	if p.fi == nil || !p.fi.Mode().IsRegular() {
		return fmt.Errorf("os.Stat of %q is not the regular file set up", p.target)
	}
	return nil
}

func verifySyscallStat(state any) error {
	p := state.(*place)
	if p.st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fmt.Errorf("syscall.Stat of %q is not the regular file set up", p.target)
	}
	return nil
}

func verifyLink(state any) error {
	p := state.(*place)
	if p.got != p.target {
		return fmt.Errorf("readlink gave %q, not %q", p.got, p.target)
	}
	return nil
}

func runOsGetwd(state any, n int) (err error) {
	p := state.(*place)
	for i := 0; i < n; i++ {
		if p.cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	return nil
}

func runSyscallGetwd(state any, n int) (err error) {
	p := state.(*place)
	for i := 0; i < n; i++ {
		if p.cwd, err = syscall.Getwd(); err != nil {
			return err
		}
	}
	return nil
}

func runOsStat(state any, n int) (err error) {
	p := state.(*place)
	for i := 0; i < n; i++ {
		if p.fi, err = os.Stat(p.target); err != nil {
			return err
		}
	}
	return nil
}

func runSyscallStat(state any, n int) error {
	p := state.(*place)
	for i := 0; i < n; i++ {
		if err := syscall.Stat(p.target, &p.st); err != nil {
			return err
		}
	}
	return nil
}

func runOsReadlink(state any, n int) (err error) {
	p := state.(*place)
	for i := 0; i < n; i++ {
		if p.got, err = os.Readlink(p.link); err != nil {
			return err
		}
	}
	return nil
}

// syscall.Readlink into a buffer the caller owns; the string is made once per
// call, as os.Readlink's is, so the two differ only in the os layer.
func runSyscallReadlink(state any, n int) error {
	p := state.(*place)
	buf := make([]byte, 4096)
	for i := 0; i < n; i++ {
		k, err := syscall.Readlink(p.link, buf)
		if err != nil {
			return err
		}
		p.got = string(buf[:k])
	}
	return nil
}

func main() {
	var cases []harnessCase
	for _, nonascii := range []bool{false, true} {
		suffix, where := "", ""
		if nonascii {
			suffix, where = "-nonascii", ", non-ASCII path"
		}
		setup := setupPlace(nonascii)
		cases = append(cases,
			harnessCase{"go-getcwd-os" + suffix, "os.Getwd, $PWD stale (after os.Chdir): stat(\".\") and stat($PWD), then getcwd" + where, 1, setup, runOsGetwd, verifyCwd, leave},
			harnessCase{"go-getcwd-os-pwd" + suffix, "os.Getwd, $PWD right (as a shell starts it): stat(\".\") and stat($PWD)" + where, 1, withPwd(setup), runOsGetwd, verifyCwd, leave},
			harnessCase{"go-getcwd-syscall" + suffix, "syscall.Getwd" + where, 1, setup, runSyscallGetwd, verifyCwd, leave},
			harnessCase{"go-stat-os" + suffix, "os.Stat(string)" + where, 1, setup, runOsStat, verifyOsStat, leave},
			harnessCase{"go-stat-syscall" + suffix, "syscall.Stat(string)" + where, 1, setup, runSyscallStat, verifySyscallStat, leave},
			harnessCase{"go-readlink-os" + suffix, "os.Readlink(string)" + where, 1, setup, runOsReadlink, verifyLink, leave},
			harnessCase{"go-readlink-syscall" + suffix, "syscall.Readlink(string, buf)" + where, 1, setup, runSyscallReadlink, verifyLink, leave},
		)
	}
	harnessMain("encoding-paths-go", cases)
}
