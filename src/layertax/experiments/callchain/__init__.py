"""callchain: what each layer between a program and the rename system call costs.

Classic: Microsoft developer blog, "It Is Nice To Be At The Top Of The Food
Chain" (about 2008): 10,000 renames through each layer of the Windows stack.
Today: one file renamed to a second name and back through glibc's wrappers,
the generic syscall() function, a bare syscall instruction, io_uring,
Python's os, pathlib and shutil, and the standard libraries of Go, Rust,
Java and Node.js. The baseline is the bare system call.
"""
from pathlib import Path

from layertax.experiment import CKernel, Case, Classic, ClassicFigure, Experiment, PythonKernel, RuntimeKernel

KERNELS = (
    CKernel("rename-c", ("kernels/file_pair.c", "kernels/rename.c")),
    CKernel("rename-uring", ("kernels/file_pair.c", "kernels/rename_uring.c"),
            libs=("-luring",), requires=("liburing",)),
    PythonKernel("rename-python", "layertax.experiments.callchain.kernels.rename_py"),
    RuntimeKernel("rename-go", "go", ("kernels/go/rename.go",)),
    RuntimeKernel("rename-rust", "rust", ("kernels/rust/main.rs",)),
    RuntimeKernel("rename-java", "java", ("kernels/java/RenameKernel.java",), main_class="RenameKernel"),
    RuntimeKernel("rename-node", "node", ("kernels/node/rename.js",)),
)

CASES = (
    Case("c-raw-syscall", "rename-c", "bare syscall instruction (no libc)", "c"),
    Case("c-syscall", "rename-c", "libc syscall() -> renameat2", "c"),
    Case("c-rename", "rename-c", "libc rename()", "c"),
    Case("c-renameat", "rename-c", "libc renameat()", "c"),
    Case("c-renameat2", "rename-c", "libc renameat2()", "c"),
    Case("c-uring", "rename-uring", "io_uring, 1 op per submit", "c"),
    Case("c-uring-batch", "rename-uring", "io_uring, 64 linked per submit", "c"),
    Case("py-os-rename-bytes", "rename-python", "Python os.rename(bytes)", "python"),
    Case("py-os-rename-str", "rename-python", "Python os.rename(str)", "python"),
    Case("py-pathlib-rename", "rename-python", "Python pathlib.Path.rename", "python"),
    Case("py-shutil-move", "rename-python", "Python shutil.move", "python"),
    Case("go-syscall-rename", "rename-go", "Go syscall.Rename", "go"),
    Case("go-os-rename", "rename-go", "Go os.Rename (lstat, then rename)", "go"),
    Case("rust-renameat2", "rename-rust", "Rust, glibc renameat2() via extern \"C\"", "rust"),
    Case("rust-fs-rename", "rename-rust", "Rust std::fs::rename", "rust"),
    Case("rust-fs-rename-long", "rename-rust", "Rust std::fs::rename, paths > 384 B", "rust"),
    Case("java-files-move-atomic", "rename-java", "Java Files.move(ATOMIC_MOVE)", "java"),
    Case("java-files-move", "rename-java", "Java Files.move", "java"),
    Case("java-file-renameto", "rename-java", "Java File.renameTo", "java"),
    Case("node-renamesync-buffer", "rename-node", "Node fs.renameSync(Buffer)", "node"),
    Case("node-renamesync-string", "rename-node", "Node fs.renameSync(string)", "node"),
)

CLASSIC = Classic(
    source='Microsoft developer blog, "It Is Nice To Be At The Top Of The Food Chain"',
    year="about 2008",
    machine="Windows, mingw build, unoptimized; average over runs",
    unit="ms per 10,000 renames",
    baseline="NtOpenFile + NtSetInformationFile + NtClose",
    figures=(
        ClassicFigure("C runtime rename()", 2230, "c-rename",
                      "the C runtime's entry point; on Windows it sat on top of four more layers"),
        ClassicFigure("MoveFileA", 1540, "py-os-rename-str",
                      "a layer that converts the path string before calling down (A -> W then; str -> bytes now)"),
        ClassicFigure("MoveFileWithProgressW", 1240, "c-renameat2",
                      "the most general API the others funnel into"),
        ClassicFigure("NtOpenFile + NtSetInformationFile + NtClose", 1060, "c-raw-syscall",
                      "the native system call(s), nothing above them"),
    ),
    conclusion="each layer above the native call cost more; the C runtime's rename() was 2.1x the native calls",
)

EXPERIMENT = Experiment(
    name="callchain",
    title="Each layer of a call chain: rename",
    question="What does each layer between a program and the rename system call cost?",
    baseline="c-raw-syscall",
    kernels=KERNELS,
    cases=CASES,
    classic=CLASSIC,
    package_dir=Path(__file__).parent,
    notes=(
        "one op = one rename; each iteration moves the file to a second name and back",
        "files live in a private temporary directory; its filesystem is recorded with the result",
    ),
    # Fifteen samples of 1 ms a burst, not three of 5 ms: the same time in each process, and the
    # paired ratios' spread over the rounds halves or better (bench/run_designs.py, docs/method/
    # statistics.md). A 5 ms sample takes in every slow moment of the file system; the median of
    # fifteen short ones leaves them out, and a JIT runtime's cold first millisecond with them.
    defaults={"burst": 15, "min_sample_ns": 1_000_000},
)
