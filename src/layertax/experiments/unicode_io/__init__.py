"""unicode-io: which runtime configurations garble or silently drop text.

Classic: Wu Yongwei (blog, Dec 2017 - Mar 2018): Chinese text written with
std::wcout came out as garbage, or all output from the first Chinese character on
was lost, depending on std::locale::global(std::locale("")) and on linking the C
runtime statically (/MT) or dynamically (/MD). Today: a correctness matrix, not a
timing: C stdio (narrow, wide, mixed), C++ wcout in six configurations, each linked
dynamically, statically and with musl; Python, Java, Go, Rust and Node, each run
under six locale environments through a pipe and a pseudo-terminal, every byte
of the output compared with the message meant.
"""
from pathlib import Path

from layertax.experiment import Case, Classic, Experiment, RuntimeKernel
from layertax.experiments.unicode_io.programs import PROGRAMS


# Built by the engine's runtime machinery (with their protocol harness beside them,
# unused: these programs only print).
KERNELS = (
    RuntimeKernel("unicode-java", "java", ("programs/java/Show.java",), main_class="Show"),
    RuntimeKernel("unicode-go", "go", ("programs/go/main.go",)),
    RuntimeKernel("unicode-rust", "rust", ("programs/rust/main.rs",)),
    RuntimeKernel("unicode-node", "node", ("programs/node/show.js",)),
)

CLASSIC = Classic(
    source="Wu Yongwei, blog posts on std::wcout and the Universal CRT",
    year="Dec 2017 - Mar 2018",
    machine="Windows 7, Visual Studio 2017 (Universal CRT before SDK 10.0.14393)",
    unit="class",
    baseline="",
    figures=(),
    conclusion="the dynamic release runtime (/MD) lost all output after the first Chinese character written "
               "through std::wcout; static (/MT) and debug builds worked; fixed in the Windows 10 SDK 14393 runtime",
)

EXPERIMENT = Experiment(
    name="unicode-io",
    title="wide text output: what arrives, byte for byte",
    question="Which runtimes and configurations garble or silently drop text, in which locale environment?",
    baseline="c-printf",
    kernels=KERNELS,
    cases=tuple(Case(p.name, p.source or p.language, p.layer, p.language) for p in PROGRAMS),
    classic=CLASSIC,
    package_dir=Path(__file__).resolve().parent,
    needs_workdir=False,
    unit="class",
    notes=("the message: ASCII, accented Latin, Chinese and an emoji, then an ASCII last line that is lost if the "
           "output stops after a failure",
           "the JSON keeps every cell's exact bytes (base64), its stderr and exit status, and the expected bytes"),
    measure="layertax.experiments.unicode_io.measure:measure",
    builds="layertax.experiments.unicode_io.native:builds",
)
