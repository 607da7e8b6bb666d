"""`layertax inspect`: the static picture, the measured picture, the split, the prediction, the fixes."""
from __future__ import annotations

import os
import statistics
from pathlib import Path

from layertax import paths, units
from layertax.engine import machine
from layertax.engine.analysis import analyze, stats
from layertax.engine.store import runs
from layertax.errors import LayertaxError, UsageError
from layertax.inspect import measure, model, runtime, split, static, tables, whole
from layertax.scratch import private_dir
from layertax.text import printable
from layertax.elf import startup_work
from layertax.launch import startable
from layertax.launch import settings as launch_settings
from layertax.launch import tools as launch_tools
from layertax.launch.stamp import EMPTY, EMPTY_STAMPED, stamp_library


def resolve_binary(name: str) -> Path:
    """A path, or a bare name looked up on PATH like a shell would (no shell runs)."""
    import shutil

    if "/" not in name and not Path(name).exists():
        found = shutil.which(name)
        if not found:
            raise UsageError(f"{name}: no such file, and not a command on PATH")
        name = found
    path = Path(name)
    if not path.exists():
        raise UsageError(f"{name}: no such file")
    if path.is_dir():
        raise UsageError(f"{name}: is a directory, not a program")
    if not path.is_file():
        raise UsageError(f"{name}: not a regular file, not a program")
    why_not = startable.not_timeable(path)
    if why_not:
        raise UsageError(f"{name}: {why_not}")
    _refuse_what_is_not_an_elf_program(path, name)
    return path.absolute()


def _refuse_what_is_not_an_elf_program(path: Path, name: str) -> None:
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError as e:
        raise UsageError(f"{name}: cannot read it ({e.strerror or e})") from None
    if head.startswith(b"#!"):
        line = head[2:].split(b"\n")[0].decode(errors="replace").strip()
        raise UsageError(f"{name}: a script (#!{line}), not an ELF program: inspect its interpreter "
                         f"(layertax inspect {_interpreter(line)} -- {path}){_shim_hint(line, path)}")
    if not head.startswith(b"\x7fELF"):
        raise UsageError(f"{name}: not an ELF program (no ELF header)")


def _interpreter(shebang: str) -> str:
    """The program a #! line runs: "/usr/bin/env node" runs node (env's own options skipped)."""
    words = shebang.split()
    if not words:
        return "its-interpreter"
    if os.path.basename(words[0]) == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        return rest[0] if rest else words[0]
    return words[0]


def _shim_hint(shebang: str, path: Path) -> str:
    """A shell script that stands for a program (pyenv's, asdf's, rbenv's shims) times the shell
    and the manager, not the program: the real one is asked of the manager."""
    if "shims" in path.parts and _interpreter(shebang) in ("bash", "sh", "/bin/sh", "/bin/bash", "/usr/bin/env"):
        return f"; {path.name} is a version manager's shim: inspect the program it runs (`pyenv which {path.name}`, " \
               f"`asdf which {path.name}`)"
    return ""


def refuse_what_cannot_start(program, path: Path, name: str) -> str | None:
    """One line, before anything is timed, for a file that is not a program (exit 2) or a program
    the loader cannot start (exit 1, with the loader's own words). Returns why this machine
    cannot run it (a foreign ELF file: described, not measured), or None."""
    why = static.not_a_program(program)
    if why:
        raise UsageError(f"{name}: {why}")
    foreign = static.runnable_here(program)
    if foreign is None:
        if not os.access(path, os.X_OK):
            raise UsageError(f"{name}: not executable (no x permission): chmod +x it first")
        complaint = startable.loader_complaint(path, program.interp) if program.interp else None
        if complaint:
            raise LayertaxError(f"{name} cannot start; the loader says: {complaint}")
    return foreign


def _user_preload() -> list[str]:
    return [p for p in os.environ.get("LD_PRELOAD", "").replace(" ", ":").split(":") if p]


def _paired_difference(a: dict, b: dict, key: str) -> float | None:
    va, vb = analyze.round_values(a, key), analyze.round_values(b, key)
    diffs = [va[r] - vb[r] for r in va if r in vb and va[r] is not None and vb[r] is not None]
    return float(statistics.median(diffs)) if diffs else None


def lookup_check(result: dict, pic, empty_pic) -> list[dict]:
    """Lookups predicted from the files vs glibc's count, per variant and for the empty control."""
    rows = []
    by_name = {c["name"]: c for c in [*result["cases"], *result["controls"]]}
    for name, p, now in ((measure.LAZY, pic, False), (measure.NOW, pic, True), (EMPTY_STAMPED, empty_pic, False)):
        case = by_name.get(name)
        if case is None or p is None:
            continue
        objs = [o for o in p.objects if o.get("elf")]
        mode = "now" if now else "lazy"
        rows.append({"variant": name, "static_lookups": sum(o["elf"]["lookups"][mode] for o in objs),
                     "static_cache": sum(o["elf"]["lookups"][f"cache_{mode}"] for o in objs),
                     "ld_debug_lookups": measure.median_reading(case, "lookups"),
                     "ld_debug_cache": measure.median_reading(case, "cache_lookups")})
    return rows


def inspect(binary: str, args: list[str], lsettings: launch_settings.LaunchSettings, model_file: Path | None,
            predict: bool, progress_factory, say, keep_calibration: bool = True, vs: list[str] | None = None,
            until_output: bool = False) -> dict:
    """keep_calibration: save a calibration sweep this run had to make, for the next inspect (not with --no-save).
    until_output: the start-up ends at the program's first output (its first byte on stdout or stderr)."""
    path = resolve_binary(binary)
    try:
        program = static.elfinfo.read(path)
    except LayertaxError as e:   # a malformed ELF file is not a program: a usage error, said in words
        raise UsageError(str(e)) from None
    why_not = refuse_what_cannot_start(program, path, binary)   # a foreign ELF file: described, not measured
    dynamic = program.interp is not None
    tools = launch_tools.tools(paths.cache_dir()) if why_not is None else None
    preload = [str(stamp_library(tools, phases=True)), *_user_preload()] if tools and dynamic else None
    pic = static.picture(path, preload=preload, program=program)
    stamp_paths = (str(stamp_library(tools, phases=True)), str(tools.first_lib)) if tools else ()
    result = {"name": "inspect", "title": f"start-up of {path.name}", "binary": str(path), "args": args,
              "question": f"Why does {path.name} take as long as it does to reach main, and what would fix it?",
              "unit": "spawn->main", "baseline": measure.LAZY, "classic": None, "cases": [], "controls": [],
              "static": pic.to_dict(), "measured_skipped": why_not, "notes": [], "interrupted": False,
              "show_cases": why_not is None, "until_output": until_output}
    reference = reference_variant = None
    if why_not is None and dynamic and predict:
        try:
            ref_path, reference_variant = model.reference_program(paths.cache_dir(), program.linker)
            reference = str(ref_path)
        except LayertaxError as e:
            result["notes"].append(f"the prediction is not calibrated on the day: {e}")
    if why_not is None:
        with private_dir("inspect-runtime") as workdir:
            _measure(result, path, args, dynamic, lsettings, tools, progress_factory, reference, workdir, say, vs,
                     until_output)
        if dynamic and startup_work.available() and not result["interrupted"]:
            say("counting ld.so's start-up work under callgrind (the empty program, once)")
            try:
                result["startup_work"] = startup_work.by_function(str(tools.empty))
            except Exception as e:   # a view that fails is said, the inspection goes on
                result["notes"].append(f"ld.so's start-up work not counted: {e}")
        if dynamic:
            empty_pic = static.picture(tools.empty, preload=preload)
            result["split"] = {v: split.split(result, v) for v in (measure.LAZY, measure.NOW,
                                                                   *([measure.vs_name(vs)] if vs else []))}
            result["lookup_check"] = lookup_check(result, pic, empty_pic)
            if predict and not result["interrupted"]:
                ref = (static.picture(Path(reference), preload=preload), reference_variant) if reference else None
                try:
                    result["prediction"] = _predict(result, pic, empty_pic, ref, stamp_paths, model_file,
                                                    progress_factory, say, keep_calibration)
                except KeyboardInterrupt:   # Ctrl-C while predicting: the measured launches are kept
                    result["interrupted"] = True
                    result["notes"].append("interrupted while the fixes were being priced: no estimates")
    parts = result.get("whole")
    result["answer"] = whole.answer(" ".join([path.name, *args])[:60], parts,
                                    (result.get("runtime_split") or {}).get("runtime"),
                                    whole.runtime_rows(result.get("runtime_split"), parts), result.get("fixes_tried") or [])
    end = whole.end_of(parts)
    versus = ((result.get("vs") or {}).get(f"spawn->{end}") or {}).get("ratio")
    if result.get("answer") and versus:
        result["answer"] += (f"; {result['vs']['name'][4:]}: {units.ratio_with_ci(versus)} of its "
                             f"spawn->{end}, paired per round")
    result["tables"] = tables.all_tables(result, pic.without(stamp_paths))
    result["notes"] += tables.notes(result)
    result["detail_notes"] = tables.detail_notes(result)
    return result


def _measure(result: dict, path: Path, args: list[str], dynamic: bool, lsettings, tools, progress_factory,
             reference: str | None, workdir: Path, say, vs: list[str] | None = None,
             until_output: bool = False) -> None:
    """The measured picture, with the fixes a recognised runtime allows tried beside the program
    (their archives and caches made first, in workdir), and the runtime's own split after main."""
    argv = [str(path), *args]
    rt = runtime.recognise(path, args)
    fixes = []
    if rt is not None:
        for fix in runtime.fixes(rt, argv, workdir):
            why = runtime.prepare(fix, workdir)
            if why:
                result["notes"].append(f"not tried: {fix.name}: {why}")
            else:
                fixes.append(fix)
        hint = runtime.hint(rt, argv)
        if hint:
            result["notes"].append(hint)
    measured = measure.measure(argv, dynamic, lsettings, tools, progress_factory(), reference, tuple(fixes), vs,
                               until_output)
    result.update({k: v for k, v in measured.items() if k not in ("name", "title", "question")})
    result["whole"] = whole.whole(result, measure.LAZY, until_output)
    result["fixes_tried"] = whole.fix_rows(result, measure.LAZY, whole.end_of(result["whole"]))
    if vs:
        result["vs"] = whole.versus(result, measure.LAZY, measure.vs_name(vs))
    if rt is not None and not result["interrupted"]:
        say(f"tracing {path.name}'s start-up with {rt.RUNTIME}'s own logging (one run, not timed)")
        result["runtime_split"] = runtime.split(rt, argv, workdir).to_dict()


def _model(model_file: Path | None, progress_factory, say, keep_calibration: bool) -> dict:
    if model_file is not None:
        return model.fit(model.load_sweep(model_file), str(model_file))
    saved = model.saved_sweep(machine.this_machine_id())
    if saved is not None:
        doc, where = saved
        fitted = model.fit(doc, where)
        if model.usable(fitted) is None:
            return fitted
    say("no usable loadtime sweep saved for this machine: running a quick calibration "
        "(`layertax loadtime sweep` runs a fuller one)")
    from layertax.experiments.loadtime import api as loadtime

    doc = loadtime.calibration_sweep(progress_factory, say)
    if not doc["complete"]:
        raise KeyboardInterrupt    # the sweep took the Ctrl-C and stopped; so does the prediction
    if keep_calibration:
        say(f"saved: {printable(runs.save_run(doc))}", whole=True)
    else:
        say("the calibration is not saved (--no-save): the next inspect runs it again")
    return model.fit(doc, "a quick calibration sweep run now")


def _calibration(fitted: dict, by_name: dict, reference, pic, empty_pic) -> tuple[dict | None, str | None]:
    """The reference program's measured loader time over the model's: how this machine runs today.
    reference: (its static picture, its loadtime variant), or None. (the calibration, None), or
    (None, why there is none)."""
    ref, empty = by_name.get(measure.REFERENCE), by_name.get(EMPTY_STAMPED)
    if reference is None or not ref or not ref["samples"] or not empty:
        return None, "no reference measurement"
    reference_pic, variant = reference
    predicted = model.predict_difference(fitted, reference_pic.counts(False), empty_pic.counts(False))
    measured = _paired_difference(ref, empty, "first_init_ns")
    if predicted <= 0:
        return None, "the model gives the reference program no time over the empty one"
    if not measured or measured <= 0:
        # A few rounds on a busy machine can put the reference's loader time at or under the
        # empty program's: a difference that says nothing of how this machine runs today.
        return None, ("the reference program's loader time did not come out above the empty program's in "
                      "these rounds")
    return ({"program": str(reference_pic.program.path), "shape": model.REFERENCE_SHAPE, "variant": variant,
             "linker": pic.program.linker, "predicted_ns": predicted, "measured_ns": measured,
             "factor": measured / predicted}, None)


def _predict(result, pic, empty_pic, reference, stamp_paths, model_file, progress_factory, say,
             keep_calibration: bool) -> dict:
    fitted = _model(model_file, progress_factory, say, keep_calibration)
    problem = model.usable(fitted)
    out = {"model": fitted, "status": "ok" if problem is None else "unusable", "reason": problem}
    if problem is not None:
        return out
    by_name = {c["name"]: c for c in [*result["cases"], *result["controls"]]}
    out["calibration"], why = _calibration(fitted, by_name, reference, pic, empty_pic)
    if why:
        out["uncalibrated"] = why
    uncalibrated = fitted
    if out["calibration"]:
        fitted = model.scaled(fitted, out["calibration"]["factor"])
    out["unpriced"] = [r for r in model.OPTIONAL_REGRESSORS if r not in model.priced(fitted)]
    empty = by_name.get(EMPTY_STAMPED)
    rows = []
    for name, now in ((measure.LAZY, False), (measure.NOW, True)):
        case = by_name.get(name)
        if case is None or not case["samples"] or empty is None:
            continue
        counts, base = pic.counts(now), empty_pic.counts(False)
        predicted = model.predict_difference(fitted, counts, base)
        measured_ns = _paired_difference(case, empty, "first_init_ns")
        rows.append({"variant": name, "counts": counts, "empty_counts": base, "predicted_ns": predicted,
                     "predicted_uncalibrated_ns": model.predict_difference(uncalibrated, counts, base),
                     "measured_ns": measured_ns,
                     "error": (predicted / measured_ns - 1) if measured_ns else None})
    out["rows"] = rows
    lazy = by_name.get(measure.LAZY)
    loader_total = measure.median_reading(lazy, "total_ns") if lazy else None
    gain = None
    now_case = by_name.get(measure.NOW)
    if lazy and now_case and lazy["samples"] and now_case["samples"]:
        # Paired per round, with its interval: a difference the interval does not resolve is
        # "no measurable saving", never a negative one.
        diff = stats.as_time(stats.paired_difference(analyze.round_values(now_case, "main_ns"),
                                                     analyze.round_values(lazy, "main_ns")))
        ratio = ((now_case.get("stats") or {}).get("ratio") or {})
        if diff is not None and ratio:
            gain = {"lazy_saves": diff, "ratio": ratio}
    static_gain = None
    bare, static_empty = by_name.get(EMPTY), by_name.get(measure.EMPTY_STATIC)
    loader_lazy = rows[0]["measured_ns"] if rows and rows[0]["variant"] == measure.LAZY else None
    if bare and static_empty and bare["samples"] and static_empty["samples"] and loader_lazy is not None:
        floor = _paired_difference(bare, static_empty, "exit_ns")
        if floor is not None:
            static_gain = loader_lazy + floor
    users = pic.without(stamp_paths)
    ldso = sum(p["ns"] for p in ((result.get("split") or {}).get(measure.LAZY) or {}).get("parts", [])
               if p["part"].startswith("ld.so"))
    out["fixes"] = model.fixes(users, fitted, loader_total, users.counts(False)["symbol_lookups"], gain, static_gain,
                               ldso or None)
    return out
