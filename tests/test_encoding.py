"""encoding: the hand-written converter against Python's codecs, its rejection of
invalid UTF-8, the shared text generator, and every kernel's own verification
(the shims must give back the very paths the direct calls do, non-ASCII included)."""
from __future__ import annotations

import ctypes
import json
import os
import random
import subprocess

import pytest

from layertax import experiments
from layertax.engine.builder import kernels, toolchain
from layertax.experiments.encoding.kernels import text as pytext

EXP = experiments.get("encoding")
KDIR = EXP.package_dir / "kernels"


@pytest.fixture(scope="module")
def utf(tmp_path_factory):
    lib = tmp_path_factory.mktemp("utf") / "libltutf.so"
    subprocess.run([toolchain.find("cc").path, "-O2", "-shared", "-fPIC", "-o", str(lib),
                    str(KDIR / "utf.c"), str(KDIR / "text.c")], check=True)
    so = ctypes.CDLL(str(lib))
    so.lt_utf8_decode.restype = so.lt_utf8_encode.restype = ctypes.c_long
    so.lt_utf8_decode.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t]
    so.lt_utf8_encode.argtypes = [ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    so.lt_text_fill.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    return so


def decode(so, data: bytes) -> list[int] | None:
    out = (ctypes.c_uint32 * (len(data) + 1))()
    n = so.lt_utf8_decode(data, len(data), out, len(data) + 1)
    return None if n < 0 else list(out[:n])


def encode(so, cps: list[int]) -> bytes | None:
    src = (ctypes.c_uint32 * max(1, len(cps)))(*cps)
    buf = ctypes.create_string_buffer(4 * len(cps) + 1)
    n = so.lt_utf8_encode(src, len(cps), buf, len(buf))
    return None if n < 0 else buf.raw[:n]


def random_code_point(rng: random.Random) -> int:
    lo, hi = rng.choice([(0, 0x80), (0x80, 0x800), (0x800, 0xD800), (0xE000, 0x10000), (0x10000, 0x110000)])
    return rng.randrange(lo, hi)


def test_hand_converter_agrees_with_python_codecs_on_random_text(utf):
    rng = random.Random(20261122)
    for _ in range(3000):
        cps = [random_code_point(rng) for _ in range(rng.randrange(0, 48))]
        data = "".join(map(chr, cps)).encode("utf-8")
        assert decode(utf, data) == cps
        assert encode(utf, cps) == data


INVALID = {
    "overlong 2-byte '/'": b"\xc0\xaf",
    "overlong 3-byte": b"\xe0\x80\xaf",
    "overlong 4-byte": b"\xf0\x80\x80\xaf",
    "overlong NUL": b"\xc0\x80",
    "surrogate U+D800": b"\xed\xa0\x80",
    "surrogate U+DFFF": b"\xed\xbf\xbf",
    "above U+10FFFF": b"\xf4\x90\x80\x80",
    "5-byte lead": b"\xf8\x88\x80\x80\x80",
    "truncated 2 of 3": b"\xe4\xb8",
    "truncated 3 of 4 at the end": b"ok\xf0\x9f\x98",
    "lone continuation": b"a\x80b",
    "missing continuation": b"\xc3A",
    "0xFF": b"\xff",
}


@pytest.mark.parametrize("label", INVALID)
def test_hand_converter_rejects_what_python_rejects(utf, label):
    data = INVALID[label]
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert decode(utf, data) is None


def test_hand_encoder_rejects_surrogates_and_values_above_unicode(utf):
    assert encode(utf, [0x41, 0xD800]) is None
    assert encode(utf, [0x110000]) is None
    assert encode(utf, [0x10FFFF]) == "\U0010ffff".encode("utf-8")


@pytest.mark.parametrize("kind", pytext.KINDS)
def test_c_and_python_generate_the_same_text(utf, kind):
    for size in (16, 256, 65536, 2 * 65536):
        buf = ctypes.create_string_buffer(size)
        assert utf.lt_text_fill(pytext.KINDS.index(kind), buf, size) == 0
        made = pytext.text(kind, size)
        assert buf.raw == made and len(made) == size
        made.decode("utf-8")   # valid UTF-8, every block on a character boundary
    assert utf.lt_text_fill(0, ctypes.create_string_buffer(65536 + 10), 65536 + 10) == -1


@pytest.fixture(scope="module")
def prepared(cache_root):
    ready = kernels.prepare([EXP], cache_root / "layertax")
    for (_, name), k in ready.items():
        assert not k.error, f"{name}: {k.error}"
        # A missing optional runtime (go, cargo, java, node) skips its cases; C and Python must build.
        assert k.argv or (k.skip and k.kind in ("go", "rust", "java", "node")), f"{name}: {k.skip}"
    return ready


def run_case(prepared, case, tmp_path) -> list[dict]:
    k = prepared[("encoding", EXP.case(case).kernel)]
    work = tmp_path / case
    work.mkdir()
    proc = subprocess.run([*k.argv, "--case", case, "--iters", "3", "--samples", "2", "--dir", str(work)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                          env={**os.environ, **k.env})
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert proc.returncode == 0, (case, lines[-1:], proc.stderr[-500:])
    assert not list(work.iterdir()), f"{case} left files behind"
    return lines


def test_every_shim_and_runtime_case_gets_back_the_paths_the_direct_call_does(prepared, tmp_path):
    """Each kernel checks its results after every sample (the shim's wide paths against the
    bytes the direct calls return, decoded by another converter); exit 0 means they agree."""
    for case in EXP.cases:
        if case.group != "throughput" and prepared[("encoding", case.kernel)].argv:
            lines = run_case(prepared, case.name, tmp_path)
            assert sum("ns" in x for x in lines) == 2


def test_every_converter_round_trips_every_kind_of_text(prepared, tmp_path):
    for case in EXP.cases:
        if case.group == "throughput" and case.name.endswith(("-256", "-64k")):
            descriptor = run_case(prepared, case.name, tmp_path)[0]
            assert descriptor["bytes_per_op"] == (256 if case.name.endswith("-256") else 65536)


def test_throughput_samples_touch_no_new_pages(prepared, tmp_path):
    """Setup touches the output buffer, so a timed sample takes no page faults. Before, the
    first conversion in each process faulted the buffer in (4,096 faults at 16 MiB), and with
    the engine's fixed iteration count that first sample ran four times slower than the rest.
    A count, not a time: ru_minflt of the sampling thread across each sample."""
    for case in ("tp-memcpy-ascii-64k", "tp-mbstowcs-cjk-64k", "tp-hand-encode-emoji-64k"):
        faults = [x["minflt"] for x in run_case(prepared, case, tmp_path) if "ns" in x]
        # The output buffer is 64 pages at 64 KiB; glibc may touch a page of its own (locale
        # data) on its first call, so the first sample may have one or two, the second none.
        assert faults[0] <= 2 and faults[1:] == [0], (case, faults)


def test_the_throughput_matrix_carries_rates_as_numbers_and_marks_a_wide_one():
    """Each cell: GB/s with its interval (the bytes over the time's ends), its share of memcpy's,
    and "~" when the rate's own interval is wider than the target; report/ writes it."""
    from layertax.experiments.encoding.tables import throughput_table
    from layertax.report import format as fmt

    def case(name, median, lo, hi, size=1000):
        return {"name": name, "descriptor": {"bytes_per_op": size}, "stats": {"median": median, "ci95": [lo, hi]}}

    result = {"cases": [case("tp-memcpy-ascii-16", 100.0, 99.0, 101.0), case("tp-wcs-ascii-16", 500.0, 400.0, 600.0)],
              "stopping": {"rule": {"precision": 0.02}}}
    table = throughput_table(result, ("memcpy", "wcs"), ("ascii",), ("16",))
    assert table["units"] == [None, None, "rate"]
    cell = table["rows"][1][2]
    assert cell["median"] == 2.0 and cell["ci95"] == [1000 / 600, 2.5] and cell["of_ceiling"] == 0.2
    assert fmt.written(table)["rows"] == [["memcpy", "ascii", "10.00"], ["wcs", "ascii", "2.00 ~ (20%)"]]
