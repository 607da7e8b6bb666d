"""Building Pietrek's generated program on Linux: one source tree per shape (generate.py), every
chosen link variant of it (variants.py) and the empty control, built once into the cache by
its own build.ninja."""
from __future__ import annotations

import hashlib
from pathlib import Path

from layertax.engine.builder import ninja, toolchain
from layertax.engine.builder.ninja import BuildFailed
from layertax.errors import LayertaxError
from layertax.programs import generate, variants


def tree_key(shape: generate.Shape, chosen: list[variants.Variant], cc: toolchain.Tool) -> str:
    h = hashlib.sha256()
    parts = [generate.GENERATOR_VERSION, repr(shape), cc.path, cc.version]
    for v in chosen:
        parts.append(repr(v))
        if v.linker:
            parts.append(toolchain.find(v.linker).version)
    for p in parts:
        h.update(p.encode() + b"\0")
    h.update((Path(variants.__file__).read_bytes()))
    h.update((Path(generate.__file__).read_bytes()))
    return h.hexdigest()[:24]


def split_available(names: list[str] | None) -> tuple[list[variants.Variant], dict[str, str]]:
    """The variants this machine can build, and a hint for each it cannot."""
    wanted = [variants.by_name(n) for n in names] if names else list(variants.VARIANTS)
    ok, skipped = [], {}
    for v in wanted:
        if v.linker and not toolchain.available(v.linker):
            skipped[v.name] = toolchain.hint(v.linker)
        else:
            ok.append(v)
    return ok, skipped


def variants_tree(shape: generate.Shape, chosen: list[variants.Variant], cc: toolchain.Tool) -> ninja.BuildTree:
    """The generated tree of one shape: its sources, and every chosen variant plus the empty control."""
    all_variants = [*chosen, variants.EMPTY]

    def write(root: Path) -> None:
        generate.write_sources(shape, root)
        variants.write_ninja(shape, root, all_variants, cc.path)

    return ninja.BuildTree("loadtime", tree_key(shape, all_variants, cc), write, label="BUILD loadtime variants")


def build_variants(shape: generate.Shape, chosen: list[variants.Variant], cache_root: Path,
                   on_line=None) -> tuple[Path, str]:
    cc = toolchain.find("cc")
    if cc is None:
        raise LayertaxError(toolchain.hint("cc"))
    tree = variants_tree(shape, chosen, cc)
    return ninja.build_tree(tree.kind, tree.key, tree.write, cache_root, on_line=on_line)


def build_program(shape: dict, variant: str, cache_root: Path) -> Path | None:
    """The generated program of this shape ({"libs": 8, "relocs": 10, ...}, the rest Pietrek's),
    linked as `variant` (a loadtime variant name); built once into the cache. None if that
    variant does not build here."""
    chosen = variants.by_name(variant)
    try:
        tree, _ = build_variants(generate.Shape(**shape), [chosen], cache_root)
    except BuildFailed:
        return None
    program = tree / chosen.program()
    return program if program.is_file() else None
