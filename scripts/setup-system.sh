#!/usr/bin/env bash
# Installs the optional system tools layertax can use, when it is allowed to (root with apt);
# otherwise says which variants each missing tool would add. Never fails for a missing
# optional tool: layertax skips what it cannot run.
set -u

# package  command-or-file-that-proves-it  what-it-adds
tools=(
  "liburing-dev|/usr/include/liburing.h|callchain: io_uring IORING_OP_RENAMEAT cases"
  "hyperfine|hyperfine|import-hyperfine and side-by-side launch checks"
  "clang|clang|loadtime: clang-built variants"
  "lld|ld.lld|loadtime: the lld linker variant"
  "mold|mold|loadtime: the mold linker variant"
  "g++|g++|scan: C++ line readers; unicode-io: the std::wcout programs"
  "musl-tools|musl-gcc|loadtime/unicode-io: musl libc variants"
  "binutils|ld.gold|loadtime: the gold linker variant, readelf for the tests"
  "valgrind|callgrind_annotate|loadtime: instructions per loader phase (callgrind)"
  "strace|strace|system-call counts"
  "chromium|chromium|the test that opens the HTML report in a headless browser"
  "gcc-mingw-w64-x86-64|x86_64-w64-mingw32-gcc|loadtime gen --target pe, windows bundle: the PE programs"
  "binutils-mingw-w64-x86-64|x86_64-w64-mingw32-dlltool|the PE programs' import libraries by ordinal"
  "wine|wine|windows run: the Windows bundle run here under Wine (correctness, Wine's timings)"
  "wine64|/usr/lib/wine/wine64|Wine's 64-bit loader, which the PE32+ programs need"
  "postgresql|/usr/lib/postgresql/*/bin/initdb|the shared history's tests (a throw-away PostgreSQL server)"
  "libbenchmark-tools|/usr/share/benchmark/compare.py|the test that reads --export-gbench with Google Benchmark's compare.py"
)
# Needed by the Python set-up itself on a bare Debian (venv's ensurepip).
python_ok=1
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || python_ok=0

# A probe is a command, or a path (which may hold a glob: PostgreSQL's binaries live under its version).
present() { case "$1" in /*) compgen -G "$1" >/dev/null ;; *) command -v "$1" >/dev/null 2>&1 ;; esac; }

missing=()
for entry in "${tools[@]}"; do
  IFS='|' read -r pkg probe _ <<<"$entry"
  present "$probe" || missing+=("$pkg")
done
[ "$python_ok" = 1 ] || missing+=("python3-venv")

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # apt's own output is hidden (hundreds of lines); a line before each step says what the wait is.
  echo "setup: apt-get update, then installing these optional system tools and what they need: ${missing[*]} ..."
  export DEBIAN_FRONTEND=noninteractive
  started=$SECONDS
  if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; then
    echo "setup: installed in $((SECONDS - started)) s"
    exit 0
  fi
  echo "setup: the install together failed; trying each package on its own"
  # Install one by one so that one unavailable package does not block the rest.
  for pkg in "${missing[@]}"; do
    echo "setup: $pkg ..."
    apt-get install -y -qq "$pkg" >/dev/null 2>&1 || echo "setup: could not install $pkg (its variants will be skipped)"
  done
  exit 0
fi

echo "setup: not root with apt, so these optional tools stay missing; install them to add:"
for entry in "${tools[@]}"; do
  IFS='|' read -r pkg probe adds <<<"$entry"
  present "$probe" || echo "  $pkg: $adds"
done
[ "$python_ok" = 1 ] || echo "  python3-venv: required to create .venv"
exit 0
