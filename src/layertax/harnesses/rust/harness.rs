//! The kernel protocol for Rust kernels (docs/method/protocol.md), mirroring native/harness.c.
//!
//! The build copies this file beside a kernel's main.rs (`mod harness;`). It
//! depends on no crate: the few glibc functions it needs (affinity, priority,
//! per-thread rusage) are declared here. It times with std::time::Instant
//! (CLOCK_MONOTONIC), calibrates, verifies after every sample, prints JSON lines.
#![allow(dead_code)]

use std::time::Instant;

pub enum Outcome {
    Fail(String),
    Skip(String),
}

pub struct Case<S> {
    pub name: &'static str,
    pub description: &'static str,
    pub ops_per_iter: u64,
    pub setup: fn(dir: Option<&str>) -> Result<S, Outcome>,
    pub run: fn(state: &mut S, iters: u64) -> Result<(), String>,
    pub verify: fn(state: &S) -> Result<(), String>,
    pub teardown: fn(state: &mut S),
}

#[repr(C)]
struct Rusage {
    times: [i64; 4],  // ru_utime, ru_stime (two timevals)
    longs: [i64; 14], // ru_maxrss ... ru_nivcsw
}

extern "C" {
    fn sched_setaffinity(pid: i32, size: usize, mask: *const u64) -> i32;
    fn setpriority(which: u32, who: u32, prio: i32) -> i32;
    fn getrusage(who: i32, usage: *mut Rusage) -> i32;
}

const RUSAGE_THREAD: i32 = 1;

fn context_switches() -> (i64, i64) {
    let mut r = Rusage { times: [0; 4], longs: [0; 14] };
    unsafe { getrusage(RUSAGE_THREAD, &mut r) };
    (r.longs[12], r.longs[13]) // ru_nvcsw, ru_nivcsw
}

/// A JSON string literal (the protocol's only non-numeric values).
pub fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn emit(line: String) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", line);
    let _ = out.flush();
}

fn problem(case: &str, key: &str, msg: &str) {
    emit(format!("{{\"case\":{},{}:{}}}", json_str(case), json_str(key), json_str(msg)));
}

struct Options {
    case: Option<String>,
    dir: Option<String>,
    samples: u64,
    min_sample_ns: u64,
    iters: u64,
    warmup_iters: u64,
    cpu: Option<usize>,
    raise_priority: bool,
}

fn parse_options() -> Result<Options, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = Options { case: None, dir: None, samples: 5, min_sample_ns: 10_000_000, iters: 0,
                          warmup_iters: 0, cpu: None, raise_priority: false };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--raise-priority" {
            o.raise_priority = true;
            i += 1;
            continue;
        }
        let v = args.get(i + 1).ok_or(format!("missing value for {}", a))?.clone();
        let n = v.parse::<u64>();
        match (a, n) {
            ("--case", _) => o.case = Some(v),
            ("--dir", _) => o.dir = Some(v),
            ("--samples", Ok(n)) if n > 0 => o.samples = n,
            ("--min-sample-ns", Ok(n)) => o.min_sample_ns = n,
            ("--iters", Ok(n)) => o.iters = n,
            ("--warmup-iters", Ok(n)) => o.warmup_iters = n,
            ("--cpu", Ok(n)) => o.cpu = Some(n as usize),
            _ => return Err(format!("bad option or value: {} {}", a, v)),
        }
        i += 2;
    }
    Ok(o)
}

fn pin(cpu: Option<usize>) -> (bool, String) {
    let Some(cpu) = cpu else { return (false, "not requested".into()) };
    let mut mask = [0u64; 16];
    if cpu >= mask.len() * 64 {
        return (false, "cpu number too large".into());
    }
    mask[cpu / 64] |= 1 << (cpu % 64);
    if unsafe { sched_setaffinity(0, std::mem::size_of_val(&mask), mask.as_ptr()) } != 0 {
        return (false, format!("sched_setaffinity: {}", std::io::Error::last_os_error()));
    }
    (true, format!("cpu {}", cpu))
}

fn priority(raise: bool) -> String {
    if !raise {
        return "unchanged (not requested)".into();
    }
    if unsafe { setpriority(0, 0, -10) } != 0 {
        return format!("unchanged (not permitted: {})", std::io::Error::last_os_error());
    }
    "nice -10".into()
}

struct Sample {
    ns: u64,
    csw_vol: i64,
    csw_invol: i64,
}

fn timed<S>(c: &Case<S>, state: &mut S, iters: u64) -> Result<Sample, String> {
    let (v0, i0) = context_switches();
    let t0 = Instant::now();
    let rc = (c.run)(state, iters);
    let ns = t0.elapsed().as_nanos() as u64;
    let (v1, i1) = context_switches();
    rc?;
    (c.verify)(state)?;
    Ok(Sample { ns: ns.max(1), csw_vol: v1 - v0, csw_invol: i1 - i0 })
}

fn calibrate<S>(c: &Case<S>, state: &mut S, min_ns: u64) -> Result<u64, String> {
    let mut iters: u64 = 1;
    loop {
        let s = timed(c, state, iters)?;
        if s.ns >= min_ns {
            return Ok(iters);
        }
        let factor = (1.25 * min_ns as f64 / s.ns as f64).clamp(2.0, 100.0);
        iters = (iters as f64 * factor) as u64 + 1;
    }
}

fn clock_overhead_ns() -> u64 {
    (0..2000).map(|_| { let a = Instant::now(); a.elapsed().as_nanos() as u64 }).min().unwrap_or(0)
}

fn samples<S>(kernel: &str, c: &Case<S>, state: &mut S, o: &Options, pin: &(bool, String), prio: &str) -> Result<(), String> {
    emit(format!(
        "{{\"kernel\":{},\"case\":{},\"description\":{},\"language\":\"rust\",\"runtime\":{},\"clock\":\"std::time::Instant (CLOCK_MONOTONIC)\",\"clock_res_ns\":1,\"clock_overhead_ns\":{},\"ops_per_iter\":{},\"warmup_iters\":{},\"pinned\":{},\"pin\":{},\"priority\":{}}}",
        json_str(kernel), json_str(c.name), json_str(c.description), json_str(env!("LAYERTAX_RUSTC_VERSION")),
        clock_overhead_ns(), c.ops_per_iter, o.warmup_iters, pin.0, json_str(&pin.1), json_str(prio)));
    if o.warmup_iters > 0 {
        timed(c, state, o.warmup_iters)?;
    }
    let iters = if o.iters > 0 { o.iters } else { calibrate(c, state, o.min_sample_ns)? };
    for _ in 0..o.samples {
        let s = timed(c, state, iters)?;
        emit(format!("{{\"case\":{},\"iters\":{},\"ops\":{},\"ns\":{},\"csw_vol\":{},\"csw_invol\":{}}}",
                     json_str(c.name), iters, iters * c.ops_per_iter, s.ns, s.csw_vol, s.csw_invol));
    }
    Ok(())
}

pub fn main<S>(kernel: &str, cases: &[Case<S>]) -> i32 {
    let o = match parse_options() {
        Ok(o) => o,
        Err(e) => { eprintln!("{}", e); return 2; }
    };
    let name = o.case.clone().unwrap_or_default();
    let Some(c) = cases.iter().find(|c| c.name == name) else {
        problem(&name, "error", "no such case in this kernel");
        return 1;
    };
    let pinned = pin(o.cpu);
    let prio = priority(o.raise_priority);
    let mut state = match (c.setup)(o.dir.as_deref()) {
        Ok(s) => s,
        Err(Outcome::Skip(why)) => { problem(c.name, "skip", &why); return 3; }
        Err(Outcome::Fail(why)) => { problem(c.name, "error", &format!("setup: {}", why)); return 1; }
    };
    let rc = samples(kernel, c, &mut state, &o, &pinned, &prio);
    (c.teardown)(&mut state);
    match rc {
        Ok(()) => 0,
        Err(e) => { problem(c.name, "error", &e); 1 }
    }
}
