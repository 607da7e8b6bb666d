"""scan: counting the bytes C, G, c, g of a file through every I/O layer, up to the
machine's ceiling.

Classic: Wu Yongwei, "C/C++ Performance, mmap, and string_view" (blog, September
2017): a Perl one-liner with tr/cCgG// beat a naive C getc() loop; getc_unlocked,
mmap and a string_view line reader beat Perl. Today: the same count through
stdio, read(2), mmap with a byte loop, a branchless mask and SIMD, C++ line
readers, Perl, Python, Go, Rust, Java and Node, every kernel checked against a
count taken with numpy, and two ceilings measured in the same rounds: one core
reading RAM, and read(2) from the page cache with no work on the bytes.
"""
from pathlib import Path

from layertax.experiment import CKernel, Case, CaseGroup, Classic, ClassicFigure, Experiment, PythonKernel, RuntimeKernel

KERNELS = (
    CKernel("scan-c", ("kernels/scan.c", "kernels/count.c"), libs=("-pthread",), cflags=("-pthread",)),
    CKernel("scan-cpp", ("kernels/lines.cpp", "kernels/count.c")),
    RuntimeKernel("scan-perl", "perl", ("kernels/perl/scan.pl",)),
    PythonKernel("scan-python", "layertax.experiments.scan.kernels.scan_py"),
    RuntimeKernel("scan-go", "go", ("kernels/go/scan.go",)),
    RuntimeKernel("scan-rust", "rust", ("kernels/rust/main.rs",)),
    RuntimeKernel("scan-java", "java", ("kernels/java/ScanKernel.java",), main_class="ScanKernel"),
    RuntimeKernel("scan-node", "node", ("kernels/node/scan.js",)),
)

CASES = (
    Case("mem-read", "scan-c", "ceiling: one core reading RAM (no I/O)", "c"),
    Case("pagecache-read", "scan-c", "ceiling: read(2) 1 MiB, no work", "c"),
    Case("getc", "scan-c", "getc() (lock skipped: one thread)", "c"),
    Case("getc-unlocked", "scan-c", "getc_unlocked()", "c"),
    Case("fgetc", "scan-c", "fgetc()", "c"),
    Case("getc-thread", "scan-c", "getc(), a second thread alive (locks)", "c"),
    Case("fread-64k", "scan-c", "fread() 64 KiB, byte loop", "c"),
    Case("read-64k", "scan-c", "read(2) 64 KiB, byte loop", "c"),
    Case("read-1m", "scan-c", "read(2) 1 MiB, byte loop", "c"),
    Case("read-1m-simd", "scan-c", "read(2) 1 MiB, SIMD", "c"),
    Case("mmap-loop", "scan-c", "mmap, byte loop (4 compares)", "c"),
    Case("mmap-mask", "scan-c", "mmap, (ch & 0xDB) == 'C'", "c"),
    Case("mmap-sse2", "scan-c", "mmap, SSE2 mask-and-compare", "c"),
    Case("mmap-simd", "scan-c", "mmap, AVX2 (run-time dispatch)", "c"),
    Case("mmap-simd-fresh", "scan-c", "mmap per pass (faults), AVX2", "c"),
    Case("cpp-lines-view", "scan-cpp", "C++17 mmap lines, string_view", "c++"),
    Case("cpp-lines-copy", "scan-cpp", "C++17 mmap lines, std::string copy", "c++"),
    Case("cpp-getline", "scan-cpp", "C++ std::getline(ifstream)", "c++"),
    Case("perl-tr", "scan-perl", "Perl: while (<>) { tr/cCgG// }", "perl"),
    Case("perl-tr-block", "scan-perl", "Perl: read 1 MiB blocks, tr/cCgG//", "perl"),
    Case("py-mmap-count", "scan-python", "Python bytes.count x4 on mmap slices", "python", "runtimes"),
    Case("py-lines", "scan-python", "Python for line in file: count x4", "python", "runtimes"),
    Case("go-read", "scan-go", "Go File.Read 64 KiB, byte loop", "go", "runtimes"),
    Case("go-bytes-count", "scan-go", "Go File.Read 1 MiB, bytes.Count x4", "go", "runtimes"),
    Case("go-scanner", "scan-go", "Go bufio.Scanner lines, byte loop", "go", "runtimes"),
    Case("rust-read", "scan-rust", "Rust File::read 64 KiB, iterator filter", "rust", "runtimes"),
    Case("rust-lines", "scan-rust", "Rust BufRead::split lines, filter", "rust", "runtimes"),
    Case("java-read", "scan-java", "Java InputStream.read 64 KiB, loop", "java", "runtimes"),
    Case("java-mmap", "scan-java", "Java FileChannel.map, get() loop", "java", "runtimes"),
    Case("java-lines", "scan-java", "Java BufferedReader.readLine", "java", "runtimes"),
    Case("node-read", "scan-node", "Node fs.readSync 64 KiB, loop", "node", "runtimes"),
    Case("node-readfile", "scan-node", "Node fs.readFileSync, loop", "node", "runtimes"),
)

# The article gave times relative to Perl's; the classic table takes them to getc.
# The same count in the language runtimes: an answer of its own (what each runtime's I/O costs),
# not the one the article asked, so a bare `layertax run` leaves it out and says so;
# `layertax run scan` or `--all` runs it. Its ratios are to getc, like the main table's.
GROUPS = (CaseGroup("runtimes", "the same count in the language runtimes", "getc", extended=True),)

CLASSIC = Classic(
    source='Wu Yongwei, "C/C++ Performance, mmap, and string_view" (blog)',
    year="September 2017",
    machine="Linux (and macOS), GCC; times relative to each other, no absolute figures",
    unit="time relative to Perl's tr (Linux)",
    baseline="naive C getc() loop",
    figures=(
        ClassicFigure("naive C getc() loop", 2.0, "getc", "the same loop; glibc now skips the stream lock while "
                      "the process has one thread"),
        ClassicFigure("Perl while (<IN>) { tr/cCgG// }", 1.0, "perl-tr", "the same one-liner"),
        ClassicFigure("mmap_line_reader (copies each line)", 1.0, "cpp-lines-copy",
                      "an mmap line reader that copies each line into a std::string"),
    ),
    conclusion="getc was about 2x slower than Perl on Linux (10x on macOS); getc_unlocked beat Perl; a plain "
               "mmap loop was faster still; a string_view line reader beat the copying one",
)

EXPERIMENT = Experiment(
    name="scan",
    title="counting C/G bytes through every I/O layer, up to the memory ceiling",
    question="Which layer eats the time when a program counts the C and G bytes of a file, and how close does "
             "the best kernel come to the machine's limit?",
    baseline="getc",
    kernels=KERNELS,
    cases=CASES,
    groups=GROUPS,
    classic=CLASSIC,
    package_dir=Path(__file__).parent,
    needs_workdir=False,
    notes=("one op = one pass over the whole file (the memory ceiling: over its own buffer); every pass's count "
           "is checked against numpy's",
           "mmap cases map the file once, populated (mmap-simd-fresh maps it every pass); stdio cases rewind, "
           "which refills their buffer with read(2)",
           "byte loops are kept scalar (no auto-vectorization), as the article's were"),
    tables="layertax.experiments.scan.tables:experiment_tables",
    run_options="layertax.experiments.scan.options:run_options",
    shared_input="layertax.experiments.scan.shared:scan_input",
    # One pass reads the whole file (64 MiB; 256 with --thorough): fewer, single-sample rounds keep a run to minutes.
    # Its baseline, getc, takes half a second a pass: a burst of it beside every two cases doubled
    # what a round cost and tightened nothing (bench/run_designs.py, docs/method/statistics.md).
    defaults={"runs": 20, "burst": 1, "pairing": "round"},
    difference_iters=(1, 2),
)
