"""The front door: every document the code, the benches and the docs point at exists; README
reads in five minutes; README and docs/ are written for a user, with no commit hashes or dated
diaries of runs."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

ROOT = Path(__file__).parent.parent
REFERENCE = re.compile(r"\b((?:docs|bench)/[\w./-]+\.(?:md|py))")
# A commit hash as the diaries cited them: seven or more hex digits with at least one letter and
# one digit, standing alone (not inside a longer word, a hex constant or a path).
HASH = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w/-])")


def _texts():
    for folder in ("src", "bench", "tests", "docs", "scripts", "deploy"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".c", ".h", ".go", ".rs", ".java", ".js", ".pm",
                                                  ".sh", ".ini", ".yml", ".cpp") and "data" not in path.parts:
                yield path
    yield ROOT / "README.md"
    yield ROOT / "CHANGELOG.md"


def test_every_document_pointed_at_exists():
    missing = sorted({f"{path.relative_to(ROOT)} -> {ref}" for path in _texts()
                      for ref in REFERENCE.findall(path.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / ref).exists() and "*" not in ref})
    assert missing == []


def test_the_readme_is_read_in_five_minutes():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_readme_and_docs_cite_no_commits():
    cited = sorted({f"{path.relative_to(ROOT)}: {m}" for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
                    for m in HASH.findall(path.read_text(encoding="utf-8"))})
    assert cited == []


def test_docs_has_a_guide_page_for_every_experiment():
    from layertax import experiments

    assert {p.stem for p in (ROOT / "docs" / "guide").glob("*.md")} >= set(experiments.registry())


def _quoted_commands():
    """Every `layertax ...` line of a shell block in README and docs/guide, as argv."""
    import shlex

    for path in [ROOT / "README.md", *(ROOT / "docs" / "guide").glob("*.md")]:
        block = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                block = line.strip() == "```sh"
                continue
            if block and line.startswith("layertax "):
                command = line.split("  #")[0].strip()
                command = re.sub(r"^(?:[A-Z_]+=\S+ )+", "", command)
                yield path.name, shlex.split(command)[1:]


def test_every_command_the_docs_quote_is_one_the_tool_takes():
    """Parsed by layertax's own command line, as a user would type it (nothing runs): an option
    renamed or removed fails here, so the docs cannot drift from the tool."""
    import click

    from layertax import cli

    cli._add_family_commands()
    cli._add_experiment_commands()
    def unparsed(ctx) -> list[str]:
        with warnings.catch_warnings():     # click 8.2 names them one way, 9.0 will another
            warnings.simplefilter("ignore", DeprecationWarning)
            return [*ctx.protected_args, *ctx.args]

    checked = []
    for where, args in _quoted_commands():
        command, ctx = cli.cli, cli.cli.make_context("layertax", list(args))
        rest = unparsed(ctx)
        while isinstance(command, click.Group) and rest:
            name, rest = rest[0], rest[1:]
            command = command.get_command(ctx, name)
            assert command is not None, (where, args, name)
            ctx = command.make_context(name, list(rest), parent=ctx)
            rest = unparsed(ctx) if isinstance(command, click.Group) else []
        checked.append(args)
    assert len(checked) >= 25
