//! callchain: one file renamed to a second name and back through Rust's layers:
//! std::fs::rename with short paths (std converts them to C strings in a stack
//! buffer) and with long ones (over std's 384-byte stack buffer: a heap
//! allocation per path), and glibc's renameat2 called directly.
mod harness;

use harness::{Case, Outcome};
use std::ffi::CString;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

const MARKER: &[u8] = b"layertax callchain marker\n";
const AT_FDCWD: i32 = -100;

extern "C" {
    fn renameat2(olddirfd: i32, oldpath: *const i8, newdirfd: i32, newpath: *const i8, flags: u32) -> i32;
}

struct Pair {
    a: PathBuf,
    b: PathBuf,
    ca: CString,
    cb: CString,
    inode: u64,
}

fn pair_in(dir: PathBuf) -> Result<Pair, Outcome> {
    let fail = |e: std::io::Error| Outcome::Fail(e.to_string());
    let (a, b) = (dir.join("layertax-file-a"), dir.join("layertax-file-b"));
    std::fs::OpenOptions::new().write(true).create_new(true).open(&a).and_then(|mut f| f.write_all(MARKER))
        .map_err(fail)?;
    if b.symlink_metadata().is_ok() {
        return Err(Outcome::Fail(format!("{} already exists", b.display())));
    }
    let inode = std::fs::metadata(&a).map_err(fail)?.ino();
    let c = |p: &PathBuf| CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    Ok(Pair { ca: c(&a), cb: c(&b), a, b, inode })
}

fn setup_short(dir: Option<&str>) -> Result<Pair, Outcome> {
    let dir = dir.ok_or(Outcome::Fail("--dir is required: rename cases work only in a private directory".into()))?;
    pair_in(PathBuf::from(dir))
}

/// Two nested directories of 200-byte names, so each path is longer than the
/// 384 bytes std converts on the stack.
fn setup_long(dir: Option<&str>) -> Result<Pair, Outcome> {
    let dir = dir.ok_or(Outcome::Fail("--dir is required: rename cases work only in a private directory".into()))?;
    let deep = PathBuf::from(dir).join("d".repeat(200)).join("e".repeat(200));
    std::fs::create_dir_all(&deep).map_err(|e| Outcome::Fail(e.to_string()))?;
    let p = pair_in(deep)?;
    if p.a.as_os_str().len() <= 384 {
        return Err(Outcome::Fail(format!("path only {} bytes long", p.a.as_os_str().len())));
    }
    Ok(p)
}

fn verify(p: &Pair) -> Result<(), String> {
    let m = std::fs::metadata(&p.a).map_err(|e| format!("after the loop {} is missing: {}", p.a.display(), e))?;
    if m.ino() != p.inode {
        return Err(format!("{} is a different file", p.a.display()));
    }
    if p.b.symlink_metadata().is_ok() {
        return Err(format!("after the loop {} still exists", p.b.display()));
    }
    if std::fs::read(&p.a).map_err(|e| e.to_string())? != MARKER {
        return Err(format!("{} lost its contents", p.a.display()));
    }
    Ok(())
}

fn teardown(p: &mut Pair) {
    let _ = std::fs::remove_file(&p.a);
    let _ = std::fs::remove_file(&p.b);
}

fn run_std(p: &mut Pair, n: u64) -> Result<(), String> {
    for _ in 0..n {
        std::fs::rename(&p.a, &p.b).map_err(|e| format!("a -> b: {}", e))?;
        std::fs::rename(&p.b, &p.a).map_err(|e| format!("b -> a: {}", e))?;
    }
    Ok(())
}

fn run_renameat2(p: &mut Pair, n: u64) -> Result<(), String> {
    for _ in 0..n {
        if unsafe { renameat2(AT_FDCWD, p.ca.as_ptr(), AT_FDCWD, p.cb.as_ptr(), 0) } != 0 {
            return Err(format!("a -> b: {}", std::io::Error::last_os_error()));
        }
        if unsafe { renameat2(AT_FDCWD, p.cb.as_ptr(), AT_FDCWD, p.ca.as_ptr(), 0) } != 0 {
            return Err(format!("b -> a: {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

fn main() {
    let cases = [
        Case { name: "rust-fs-rename", description: "std::fs::rename, short paths (C strings built on the stack)",
               ops_per_iter: 2, setup: setup_short, run: run_std, verify, teardown },
        Case { name: "rust-fs-rename-long", description: "std::fs::rename, paths over 384 bytes (C strings on the heap)",
               ops_per_iter: 2, setup: setup_long, run: run_std, verify, teardown },
        Case { name: "rust-renameat2", description: "glibc renameat2() declared by hand (extern \"C\"), no std layer",
               ops_per_iter: 2, setup: setup_short, run: run_renameat2, verify, teardown },
    ];
    std::process::exit(harness::main("callchain-rename-rust", &cases));
}
