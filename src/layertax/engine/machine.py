"""The machine fingerprint stored with every run, and what would steady it.

Everything is read from /proc and /sys without privileges; a value that cannot
be read is recorded as None, never guessed.
"""
from __future__ import annotations

import hashlib
import os
import platform
import resource
from pathlib import Path

from layertax.engine.builder import toolchain

SYS_CPU = Path("/sys/devices/system/cpu")


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def _cpuinfo() -> dict[str, str]:
    info: dict[str, str] = {}
    text = _read("/proc/cpuinfo") or ""
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() not in info:
            info[key.strip()] = value.strip()
    return info


def _meminfo_bytes(key: str) -> int | None:
    for line in (_read("/proc/meminfo") or "").splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return None


def _meminfo_gib() -> float | None:
    total = _meminfo_bytes("MemTotal")
    return None if total is None else round(total / 2**30, 1)


def memory_available() -> int | None:
    """Bytes the kernel reckons can be allocated now without swapping (MemAvailable)."""
    return _meminfo_bytes("MemAvailable")


def _governors() -> list[str]:
    found = set()
    for gov in SYS_CPU.glob("cpu[0-9]*/cpufreq/scaling_governor"):
        value = _read(gov)
        if value:
            found.add(value)
    return sorted(found)


def _turbo() -> str | None:
    no_turbo = _read(SYS_CPU / "intel_pstate/no_turbo")
    if no_turbo is not None:
        return "off" if no_turbo == "1" else "on"
    boost = _read(SYS_CPU / "cpufreq/boost")
    if boost is not None:
        return "on" if boost == "1" else "off"
    return None


def _mitigations() -> dict[str, str]:
    out = {}
    for f in sorted((SYS_CPU / "vulnerabilities").glob("*")):
        value = _read(f)
        if value is not None:
            out[f.name] = value
    return out


def libc_version() -> str | None:
    try:
        name = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        name = None
    return name or " ".join(platform.libc_ver()) or None


def filesystem_of(path: str | Path) -> str | None:
    """The filesystem type holding path, from the longest matching mount point."""
    target = os.path.realpath(path)
    best, fstype = "", None
    for line in (_read("/proc/self/mountinfo") or "").splitlines():
        left, _, right = line.partition(" - ")
        fields = left.split()
        if len(fields) < 5 or not right:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, fstype = mount, right.split()[0]
    return fstype


def _identity(cpu: dict, uname: platform.uname_result) -> dict:
    """What machine_id is made of: the host, its CPU and system, none of which starts a process."""
    return {"hostname_hash": hashlib.sha256(uname.node.encode()).hexdigest()[:12],
            "cpu_model": cpu.get("model name") or cpu.get("Hardware") or uname.machine,
            "cores": os.cpu_count(), "kernel": uname.release, "libc": libc_version()}


def this_machine_id() -> str:
    """fingerprint()["machine_id"] without the rest of the fingerprint: the tools' versions start
    twenty processes (half a second of CPU), and a listing of this machine's runs needs none."""
    return machine_id(_identity(_cpuinfo(), platform.uname()))


def fingerprint() -> dict:
    cpu = _cpuinfo()
    uname = platform.uname()
    identity = _identity(cpu, uname)
    flags = cpu.get("flags", "").split()
    try:
        usable = sorted(os.sched_getaffinity(0))
    except OSError:
        usable = list(range(os.cpu_count() or 1))
    fp = {
        "hostname_hash": identity["hostname_hash"],
        "cpu_model": identity["cpu_model"],
        "arch": uname.machine,
        "cores": identity["cores"],
        "usable_cpus": usable,
        "memory_gib": _meminfo_gib(),
        "virtualized": "hypervisor" in flags,
        "os": _read("/etc/os-release") and _os_pretty_name(),
        "kernel": identity["kernel"],
        "libc": identity["libc"],
        "python": platform.python_version(),
        "clocksource": _read(SYS_CPU.parent / "clocksource/clocksource0/current_clocksource"),
        "governors": _governors(),
        "turbo": _turbo(),
        "aslr": _read("/proc/sys/kernel/randomize_va_space"),
        "isolated_cpus": _read(SYS_CPU / "isolated"),
        "nohz_full": _read(SYS_CPU / "nohz_full"),
        "perf_event_paranoid": _read("/proc/sys/kernel/perf_event_paranoid"),
        "loadavg": _read("/proc/loadavg"),
        "mitigations": _mitigations(),
        "tools": toolchain.versions(),
    }
    fp["machine_id"] = machine_id(fp)
    return fp


def _os_pretty_name() -> str | None:
    for line in (_read("/etc/os-release") or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.split("=", 1)[1].strip('"')
    return None


# The names of /proc/stat's first eight columns, in jiffies (USER_HZ) since boot.
STAT_COLUMNS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_times() -> dict[str, int] | None:
    """Cumulative jiffies of all CPUs from /proc/stat (user, system, idle, steal, ...), and
    "own_ns": the CPU time this process and its reaped children have used (getrusage), so
    that cpu_activity() can tell this run's work from everyone else's."""
    for line in (_read("/proc/stat") or "").splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:1 + len(STAT_COLUMNS)]]
            reading = dict(zip(STAT_COLUMNS, values))
            reading["own_ns"] = _own_cpu_ns()
            return reading
    return None


def _own_cpu_ns() -> int:
    used = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        used += usage.ru_utime + usage.ru_stime
    return int(used * 1e9)


# Outside shares over a shorter window are not reported: /proc/stat counts whole jiffies
# (10 ms) per CPU, so over 0.5 s on 2 CPUs one jiffy either way is 1% of the machine.
OUTSIDE_MIN_WINDOW_S = 1.0


def cpu_activity(before: dict[str, int] | None, after: dict[str, int] | None) -> dict | None:
    """Shares of CPU time between two cpu_times() readings: how busy, how much stolen, and how
    much went to tasks outside this run.

    Steal is time the hypervisor gave this VM's CPUs to someone else: the clearest
    sign of noisy neighbours on the host. "outside_share" is the busy time no task of this
    run used (the system-wide busy time of /proc/stat less this process's and its children's
    own): neighbours inside the same kernel. On a machine shared by containers they do not
    show in `ps` or `top` here (another PID namespace), but their CPU time is in /proc/stat
    and their run-queue waits in ours. None when the window was under
    OUTSIDE_MIN_WINDOW_S or a reading lacks this run's own time.
    """
    if not before or not after:
        return None
    delta = {k: after[k] - before[k] for k in STAT_COLUMNS if k in before and k in after}
    total = sum(delta.values())
    if total <= 0:
        return None
    activity = {"steal_share": round(delta.get("steal", 0) / total, 4),
                "busy_share": round(1 - (delta["idle"] + delta.get("iowait", 0)) / total, 4)}
    cpus = os.cpu_count() or 1
    hz = os.sysconf("SC_CLK_TCK")
    window_s = total / hz / cpus
    activity["window_s"] = round(window_s, 3)
    if "own_ns" in before and "own_ns" in after and window_s >= OUTSIDE_MIN_WINDOW_S:
        busy_s = (total - delta["idle"] - delta.get("iowait", 0) - delta.get("steal", 0)) / hz
        own_s = (after["own_ns"] - before["own_ns"]) / 1e9
        activity["own_share"] = round(min(1.0, own_s / (total / hz)), 4)
        activity["outside_share"] = round(max(0.0, busy_s - own_s) / (total / hz), 4)
    else:
        activity["outside_share"] = None
    return activity


def visible_ticks() -> int:
    """The CPU time, in clock ticks, used so far by every process this one can see in /proc
    (utime + stime of /proc/PID/stat, all threads). In a container the tasks of other
    containers on the same kernel, and the kernel's own threads, are not among them."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # The command name, field 2, may hold spaces and parentheses: split after its last ")".
            fields = stat.read_text().rpartition(")")[2].split()
            ticks += int(fields[11]) + int(fields[12])   # fields 14 and 15 of proc(5)
        except (OSError, IndexError, ValueError):   # gone meanwhile, or unreadable
            continue
    return ticks


def unseen_share(activity: dict | None, visible_ticks_used: int) -> float | None:
    """The share of all CPUs' time, over cpu_activity()'s window, that was busy but not used by
    any process visible here (visible_ticks() after less before): None without a window."""
    if not activity or not activity.get("window_s"):
        return None
    total_ticks = activity["window_s"] * os.sysconf("SC_CLK_TCK") * (os.cpu_count() or 1)
    busy_ticks = (activity["busy_share"] - activity["steal_share"]) * total_ticks
    return round(max(0.0, busy_ticks - visible_ticks_used) / total_ticks, 4)


# Above this share of the CPUs' time in tasks `ps` cannot show, the doctor names them.
UNSEEN_WARN = 0.10


def machine_id(fp: dict) -> str:
    """Identifies 'the same machine' for history: hardware and system, not the moment's load."""
    stable = "|".join(str(fp.get(k)) for k in ("hostname_hash", "cpu_model", "cores", "kernel", "libc"))
    return hashlib.sha256(stable.encode()).hexdigest()[:16]


# What changes from run to run on one machine and says nothing about it (the moment's load).
_TRANSIENT = {"loadavg", "machine_id"}


def differences(a: dict, b: dict) -> list[str]:
    """ "kernel: 6.1.0-9 vs 6.1.0-13", "tools.gcc: ... vs ...": how two fingerprints differ,
    one item per key (nested tables such as tools and mitigations key by key)."""
    found = []
    for key in sorted((set(a) | set(b)) - _TRANSIENT):
        va, vb = a.get(key), b.get(key)
        if isinstance(va, dict) or isinstance(vb, dict):
            va, vb = va or {}, vb or {}
            found += [f"{key}.{k}: {va.get(k, 'absent')} vs {vb.get(k, 'absent')}"
                      for k in sorted(set(va) | set(vb)) if va.get(k) != vb.get(k)]
        elif va != vb:
            found.append("another host" if key == "hostname_hash" else f"{key}: {va} vs {vb}")
    return found


def advice(fp: dict, activity: dict | None = None) -> list[tuple[str, str]]:
    """(level, message) pairs saying what would make measurements steadier, like `pyperf system show`.

    activity: cpu_activity() over a short window just now, if measured, with "unseen_share"
    (unseen_share()) if the processes visible here were read around the same window.
    """
    out: list[tuple[str, str]] = []
    if activity:
        busy, steal = activity["busy_share"], activity["steal_share"]
        level = "warn" if busy > 0.25 else "ok"
        out.append((level, f"CPUs {busy:.0%} busy over the last second" +
                    (": something else is running" if level == "warn" else "")))
        if steal > 0.01:
            out.append(("warn", f"the hypervisor stole {steal:.1%} of CPU time in the last second: "
                                "neighbours on the host are busy; expect noise"))
        elif fp.get("virtualized"):
            out.append(("ok", f"steal time {steal:.1%} over the last second"))
        unseen = activity.get("unseen_share")
        if unseen is not None and unseen > UNSEEN_WARN:
            out.append(("warn", f"{unseen:.0%} of the CPUs' time went to tasks no process here can see: "
                                "another container on this kernel, or the kernel's own threads "
                                "(ps and top do not show them; /proc/stat and the load average do)"))
    load = fp.get("loadavg")
    if load:
        one_min = float(load.split()[0])
        if one_min > 0.5 * (fp.get("cores") or 1):
            out.append(("warn", f"load average {one_min:.2f} on {fp['cores']} cores: other work will disturb timings"))
        else:
            out.append(("ok", f"load average {one_min:.2f}"))
    govs = fp.get("governors") or []
    if not govs:
        out.append(("info", "CPU frequency governor not visible (common in VMs)"))
    elif govs != ["performance"]:
        out.append(("warn", f"CPU governor is {', '.join(govs)}: set 'performance' for stable clocks "
                            "(cpupower frequency-set -g performance)"))
    else:
        out.append(("ok", "CPU governor is performance"))
    if fp.get("turbo") == "on":
        out.append(("warn", "turbo boost is on: clock speed depends on temperature and load; "
                            "disable it for steadier numbers"))
    if not fp.get("isolated_cpus"):
        out.append(("info", "no isolated CPUs: isolcpus=N (kernel command line) gives the kernels a quiet core"))
    else:
        out.append(("ok", f"isolated CPUs: {fp['isolated_cpus']}"))
    if fp.get("aslr") == "2":
        out.append(("info", "ASLR is on (randomize_va_space=2): start-up timings vary with layout; "
                            "it is the normal setting, so layertax measures with it"))
    clock = fp.get("clocksource")
    if clock and clock not in ("tsc", "arch_sys_counter"):
        out.append(("warn", f"clocksource is {clock}: clock_gettime may enter the kernel, adding cost and noise"))
    elif clock:
        out.append(("ok", f"clocksource is {clock} (read in user space)"))
    if fp.get("virtualized"):
        out.append(("info", "running under a hypervisor: steal time and noisy neighbours add noise"))
    paranoid = fp.get("perf_event_paranoid")
    if paranoid is not None and paranoid.lstrip("-").isdigit() and int(paranoid) > 2:
        out.append(("info", f"perf_event_paranoid={paranoid}: hardware counters are off for normal users"))
    if os.geteuid() != 0:
        out.append(("info", "not root: kernels cannot raise their priority (they say so in each result)"))
    return out
