"""Builds kernels written in Go, Rust, Java and JavaScript, each with its language's harness.

Each kernel becomes a small generated tree: its sources, the harness of its
language (layertax/harnesses/<kind>/), the project file the toolchain wants
(go.mod, Cargo.toml) and a build.ninja that calls the toolchain. The tree is
built with ninja into the cache under a key made of everything that goes into
it (sources, harness, the toolchain's version), so a second run reuses it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from layertax import files
from layertax.engine.builder import ninja, toolchain
from layertax.experiment import Experiment, RuntimeKernel

HARNESS_DIR = Path(__file__).resolve().parents[2] / "harnesses"
FORMAT = "layertax-runtime/3"  # bump to invalidate every cached build

# What each kind needs: the tools that must be installed to build and run it.
REQUIRES = {"go": ("go",), "rust": ("cargo", "rustc"), "java": ("javac", "java"), "node": ("node",),
            "perl": ("perl",)}
HARNESS_FILES = {"go": ("harness.go",), "rust": ("harness.rs",), "java": ("Harness.java",), "node": ("harness.js",),
                 "perl": ("LayertaxHarness.pm",)}
# Runtimes that cannot pin themselves (a JVM, Node, Perl without CPAN modules): the engine does it before exec.
ENGINE_PINS = {"java", "node", "perl"}
# Script runtimes: nothing to compile; the tree is the program and its first source the script run.
SCRIPT_KINDS = {"node", "perl"}
# Trees of these kinds build one at a time in a run's graph. Go: its build cache is shared,
# so the first build compiles the standard library once for all the others (four at once
# compiled it four times: the whole graph took 24 s against 19 s built one by one).
POOLS = {"go": "go"}
JAVA_FLAGS = ("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC")
# The JVM takes its path encoding (sun.jnu.encoding) from the locale and cannot be told
# otherwise: under the C locale it would turn every non-ASCII path into '?'. The C
# kernels convert in C.UTF-8 too, so every converter works in the same encoding.
KIND_ENV = {"java": {"LC_ALL": "C.UTF-8"}}


@dataclass
class Built:
    argv: list[str]
    info: dict


def missing_tool(kind: str) -> str | None:
    for tool in REQUIRES[kind]:
        if not toolchain.available(tool):
            return tool
    return None


def _inputs(exp: Experiment, k: RuntimeKernel) -> list[tuple[str, Path]]:
    """(name in the tree, source file) for the kernel's sources and its harness."""
    sources = [(Path(s).name, (exp.package_dir / s).resolve()) for s in k.sources]
    harness = [(name, HARNESS_DIR / k.kind / name) for name in HARNESS_FILES[k.kind]]
    return sources + harness


def _key(exp: Experiment, k: RuntimeKernel, versions: list[str]) -> str:
    h = hashlib.sha256()
    for part in (FORMAT, exp.name, k.name, k.kind, k.main_class, *versions):
        h.update(part.encode() + b"\0")
    for name, path in _inputs(exp, k):
        h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:24]


def _q(text: str) -> str:
    return ninja.shell_quote(text).replace("$", "$$")  # ninja's escape, inside the shell quoting


def _ninja(kind: str, k: RuntimeKernel, tools: dict[str, toolchain.Tool], names: list[str],
           binary: str) -> tuple[str, str]:
    """(build.ninja text, the output it produces) for one kernel tree. binary: the name a compiled
    kernel's executable takes, as a C kernel's does (experiment-kernel): callgrind names each
    object by its file, and a binary named "kernel" would read as the operating system's kernel
    in the table of where the instructions go."""
    ins = " ".join(f"src/{n}" if kind == "rust" else n for n in names)
    if kind == "go":
        # GOTOOLCHAIN=local: never download another Go; -trimpath keeps the cache path out of the binary.
        cmd = f"env GOTOOLCHAIN=local GOFLAGS=-mod=mod {_q(tools['go'].path)} build -trimpath -o {_q(binary)} ."
        out = binary
    elif kind == "rust":
        cmd = (f"env LAYERTAX_RUSTC_VERSION={_q(tools['rustc'].version)} CARGO_TARGET_DIR=target "
               f"{_q(tools['cargo'].path)} build --release --offline --quiet && cp target/release/{_q(binary)} {_q(binary)}")
        out = binary
    elif kind == "java":
        cmd = f"{_q(tools['javac'].path)} -encoding UTF-8 -d classes {ins}"
        out = f"classes/{k.main_class}.class"
    else:  # node, perl: nothing to compile; the tree is the program
        return "ninja_required_version = 1.10\n", names[0]
    text = "\n".join(["ninja_required_version = 1.10", "rule tool", f"  command = {cmd}",
                      f"  description = {kind.upper()} {k.name}", f"build {out}: tool {ins}", ""])
    return text, out


# The package is named for the kernel (experiment-kernel), as its executable is: its crate's name
# leads every symbol of its own in a call chain (callchain_rename_rust::run_renameat2).
_CARGO_TOML = """[package]
name = "{name}"
version = "0.1.0"
edition = "2021"

[profile.release]
debug = 1   # symbols for callgrind's call chains
"""


@dataclass
class Planned:
    """A runtime kernel's tree, to build (in the run's graph or alone), and what it needs after."""
    kernel: RuntimeKernel
    tree: ninja.BuildTree
    out: str                              # the tree's file that proves the build
    tools: dict[str, toolchain.Tool]


def plan(exp: Experiment, k: RuntimeKernel) -> Planned:
    """The tree one kernel builds in: its sources, its harness, its project file, its build.ninja."""
    tools = {name: toolchain.find(name) for name in REQUIRES[k.kind]}
    versions = [t.version for t in tools.values()]
    inputs = _inputs(exp, k)
    names = [n for n, _ in inputs]
    text, out = _ninja(k.kind, k, tools, names, f"{exp.name}-{k.name}")

    def write(tree: Path) -> None:
        dest = tree / "src" if k.kind == "rust" else tree
        dest.mkdir(exist_ok=True)
        for name, path in inputs:
            files.copy_file(path, dest / name)
        if k.kind == "go":
            files.write_text("module layertax/kernel\n\ngo 1.21\n", tree / "go.mod")
        elif k.kind == "rust":
            files.write_text(_CARGO_TOML.format(name=f"{exp.name}-{k.name}"), tree / "Cargo.toml")
        files.write_text(text, tree / "build.ninja")

    tree = ninja.BuildTree(f"kernels-{k.kind}", _key(exp, k, versions), write, required=(out,),
                           label=f"{k.kind.upper()} {exp.name}-{k.name}", pool=POOLS.get(k.kind, ""))
    return Planned(k, tree, out, tools)


def finish(planned: Planned, cache_root: Path, build_log: str = "") -> Built:
    """The command of a planned kernel whose tree was built; raises ninja.BuildFailed with the
    first error line of build_log (the log of the build that just failed) if it was not."""
    k, tools, out = planned.kernel, planned.tools, planned.out
    tree, log = planned.tree.result(cache_root)
    log = log or build_log
    if not (tree / out).is_file():
        raise ninja.BuildFailed(f"build of kernel {k.name} ({k.kind}) failed: {ninja.first_error(log)}")
    info = {"toolchain": {n: t.version for n, t in tools.items()}, "tree": str(tree)}
    if k.kind == "java":
        # A small fixed heap and the serial collector: a kernel needs little, and the JVM then
        # neither reserves a quarter of the machine's memory nor starts GC threads per CPU.
        argv = [tools["java"].path, *JAVA_FLAGS, "-cp", str(tree / "classes"), k.main_class]
        info["jvm_flags"] = list(JAVA_FLAGS)
    elif k.kind in SCRIPT_KINDS:
        argv = [tools[k.kind].path, str(tree / out)]
    else:
        argv = [str(tree / out)]
    return Built(argv, info)
