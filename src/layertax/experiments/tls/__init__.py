"""tls: what reaching per-thread (or locked global) runtime state costs.

Classic: CodeProject, December 2005: a loop of rand() calls ran slower with Visual
C++ 2005 than with 2003, because rand() found its per-thread CRT data through
_getptd(), which called TlsGetValue twice; removing the redundant call made it about
18% faster. Today: glibc's rand() (a locked global generator), rand_r, random_r and
errno against a plain xorshift, with one thread, an idle second thread, and every CPU
at once; then one thread-local counter through each x86-64 TLS access model (checked
in the ELF relocations), pthread_getspecific and a C++ thread_local with a
constructor, against a plain global; each built dynamically and statically.
"""
from pathlib import Path

from layertax.experiment import CKernel, Case, CaseGroup, Classic, ClassicFigure, Experiment

SOURCES = ("kernels/tls.c", "kernels/tl_ctor.cpp", "kernels/tl_use.cpp")

KERNELS = (
    CKernel("tls-c", SOURCES, libs=("-pthread", "-ldl"), cflags=("-pthread",)),
    CKernel("tls-c-static", SOURCES, libs=("-static", "-pthread"), cflags=("-pthread", "-DLT_STATIC")),
)


def _state(name: str, layer: str, kernel: str = "tls-c") -> Case:
    # The -threads cases run a thread on every CPU (kernels/tls.c run_parallel).
    return Case(name, kernel, layer, "c", every_cpu=name.endswith("-threads"))


def _model(name: str, layer: str, kernel: str = "tls-c", language: str = "c") -> Case:
    return Case(name, kernel, layer, language, group="models")


CASES = (
    _state("xorshift", "xorshift64: state in a register (the floor)"),
    _state("rand", "rand(): glibc's locked global generator"),
    _state("rand-idle-thread", "rand(), an idle second thread alive"),
    _state("rand-threads", "rand() on every CPU at once (contention)"),
    _state("rand-r", "rand_r(&seed): the caller holds the state"),
    _state("rand-r-threads", "rand_r on every CPU at once"),
    _state("random-r", "random_r(&buf, &out)"),
    _state("errno", "errno written and read back (one __errno_location)"),
    _state("rand-static", "rand(), static glibc", "tls-c-static"),
    _state("errno-static", "errno, static glibc", "tls-c-static"),
    _model("global-var-ptr", "a plain global through a pointer, no TLS (the floor)"),
    _model("global-var", "the same global at a RIP-relative address"),
    _model("tls-le", "__thread in the program: local-exec"),
    _model("tls-ie", "__thread in a library: initial-exec"),
    _model("tls-gd", "dlopened library: global-dynamic (__tls_get_addr)"),
    _model("tls-desc", "dlopened library: TLS descriptors (gnu2)"),
    _model("tls-desc-dynamic", "dlopened library: TLS descriptors, dynamic TLS (static TLS exhausted)"),
    _model("pthread-getspecific", "pthread_getspecific(key)"),
    _model("cpp-thread-local-ctor", "C++ thread_local with a constructor (wrapper)", language="c++"),
    _model("tls-le-static", "local-exec, static", "tls-c-static"),
    _model("pthread-getspecific-static", "pthread_getspecific, static", "tls-c-static"),
    _model("cpp-thread-local-ctor-static", "C++ thread_local with a constructor, static", "tls-c-static", "c++"),
)

CLASSIC = Classic(
    source='CodeProject, "rand() is slower in Visual C++ 2005"',
    year="December 2005",
    machine="Windows XP, Visual C++ 2005 vs 2003; 5,000,000 rand() calls",
    unit="relative time",
    baseline="rand() via _getptd, one TlsGetValue",
    figures=(
        ClassicFigure("rand() via _getptd, one TlsGetValue", 1.0, "rand",
                      "glibc's rand() finds its state without a per-thread lookup: it locks one global generator"),
        ClassicFigure("rand() via _getptd, two TlsGetValue (VC 2005)", 1.18, None,
                      "no redundant lookup to remove in glibc; the spread of today's access paths is in the "
                      "models table"),
    ),
    conclusion="one redundant TlsGetValue per call cost about 18%",
)


EXPERIMENT = Experiment(
    name="tls",
    title="reaching per-thread runtime state",
    question="What does a call pay to find its per-thread (or locked global) state, by each path there is?",
    baseline="xorshift",
    kernels=KERNELS,
    cases=CASES,
    classic=CLASSIC,
    package_dir=Path(__file__).resolve().parent,
    groups=(CaseGroup("models", "one thread-local counter, bumped once per call, by access path", "global-var-ptr"),),
    notes=("every case checks its final value: rand/random_r sums against a replay of glibc's generator, "
           "rand_r against a replay of its seeds, each counter against the iterations run",
           "-threads cases run one thread per CPU, each pinned to its own; ns/op is the time of one call as each "
           "thread sees it (under --quick's 2 ms samples, starting the threads inflates it)",
           "tls-ie, tls-gd and tls-desc are one library built three ways and dlopened; its relocations are "
           "checked before it is timed (see the access-model table)"),
    tables="layertax.experiments.tls.tables:tables",
    shared_input="layertax.experiments.tls.shared:model_libraries",
    builds="layertax.experiments.tls.models:builds",
    # Samples of 20 ms: a -threads case starts its workers in every sample, and waking an
    # idle virtual CPU takes long enough to inflate a 5 ms sample by several percent. Up to 40
    # rounds, where callchain goes on to 56: replayed on a recorded `run callchain tls --runs 56`
    # (bench/stopping_replay.py), tls finished 5.6 ratios at a 60 s deadline with 40 rounds at
    # most and 4.8 with 56, and its share of a default run is 50-60 s.
    defaults={"min_sample_ns": 20_000_000, "runs": 40},
)
