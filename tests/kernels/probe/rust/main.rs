//! The probe kernel in Rust (tests/test_protocol_conformance.py): "count" counts and checks its
//! count, "wrong" is always off by one and must be refused, "skip" cannot run here.
mod harness;

use harness::{Case, Outcome};

struct Counter {
    n: u64,
    expect: u64,
}

fn setup(_dir: Option<&str>) -> Result<Counter, Outcome> {
    Ok(Counter { n: 0, expect: 0 })
}

fn setup_skip(_dir: Option<&str>) -> Result<Counter, Outcome> {
    Err(Outcome::Skip("feature X is not available here".into()))
}

fn run(c: &mut Counter, iters: u64) -> Result<(), String> {
    for _ in 0..iters {
        c.n = std::hint::black_box(c.n + 1);
    }
    c.expect += iters;
    Ok(())
}

fn run_wrong(c: &mut Counter, iters: u64) -> Result<(), String> {
    run(c, iters)?;
    c.n -= 1;
    Ok(())
}

fn verify(c: &Counter) -> Result<(), String> {
    if c.n != c.expect {
        return Err(format!("wrong result: expected {}, got {}", c.expect, c.n));
    }
    Ok(())
}

fn teardown(_c: &mut Counter) {}

fn main() {
    let cases = [
        Case { name: "count", description: "counts to iters and checks the count", ops_per_iter: 3, setup, run,
               verify, teardown },
        Case { name: "wrong", description: "always one short: a wrong answer", ops_per_iter: 1, setup,
               run: run_wrong, verify, teardown },
        Case { name: "skip", description: "cannot run here", ops_per_iter: 1, setup: setup_skip, run, verify,
               teardown },
    ];
    std::process::exit(harness::main("probe-rust", &cases));
}
