"""The front door: every document the code, the benches and the docs point at exists; README
reads in five minutes; README and docs/ are written for a user, with no commit hashes or dated
diaries of runs."""
from __future__ import annotations

import re
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
