//! scan, Rust: File::read into 64 KiB with an iterator filter-count, and the
//! idiomatic BufReader line loop (split on b'\n': each line a fresh Vec<u8>).
mod harness;

use harness::{Case, Outcome};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

struct Input {
    file: File,
    expect: u64,
    got: u64,
    buf: Vec<u8>,
}

fn env_u64(name: &str) -> Result<u64, Outcome> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
        .ok_or_else(|| Outcome::Fail(format!("{} is not set to a number", name)))
}

fn setup(_dir: Option<&str>) -> Result<Input, Outcome> {
    let path = std::env::var("LAYERTAX_SCAN_FILE")
        .map_err(|_| Outcome::Fail("LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`".into()))?;
    let size = env_u64("LAYERTAX_SCAN_BYTES")?;
    let expect = env_u64("LAYERTAX_SCAN_COUNT")?;
    let file = File::open(&path).map_err(|e| Outcome::Fail(format!("open {}: {}", path, e)))?;
    let len = file.metadata().map_err(|e| Outcome::Fail(e.to_string()))?.len();
    if len != size {
        return Err(Outcome::Fail(format!("{} changed size", path)));
    }
    Ok(Input { file, expect, got: u64::MAX, buf: vec![0; 64 << 10] })
}

fn is_cg(b: &u8) -> bool {
    matches!(*b, b'c' | b'C' | b'g' | b'G')
}

fn run_read(s: &mut Input, iters: u64) -> Result<(), String> {
    for _ in 0..iters {
        s.file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
        let mut n = 0u64;
        loop {
            let got = s.file.read(&mut s.buf).map_err(|e| e.to_string())?;
            if got == 0 {
                break;
            }
            n += s.buf[..got].iter().filter(|b| is_cg(b)).count() as u64;
        }
        s.got = n;
    }
    Ok(())
}

fn run_lines(s: &mut Input, iters: u64) -> Result<(), String> {
    for _ in 0..iters {
        s.file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
        let mut n = 0u64;
        for line in BufReader::new(&s.file).split(b'\n') {
            let line = line.map_err(|e| e.to_string())?;
            n += line.iter().filter(|b| is_cg(b)).count() as u64;
        }
        s.got = n;
    }
    Ok(())
}

fn verify(s: &Input) -> Result<(), String> {
    if s.got != s.expect {
        return Err(format!("counted {} C/G/c/g bytes, expected {}", s.got, s.expect));
    }
    Ok(())
}

fn teardown(_s: &mut Input) {}

fn main() {
    let cases = [
        Case { name: "rust-read", description: "File::read 64 KiB, iter().filter().count()", ops_per_iter: 1,
               setup, run: run_read, verify, teardown },
        Case { name: "rust-lines", description: "BufReader::split(b'\\n'): a Vec<u8> per line, filter().count()",
               ops_per_iter: 1, setup, run: run_lines, verify, teardown },
    ];
    std::process::exit(harness::main("scan-rust", &cases));
}
