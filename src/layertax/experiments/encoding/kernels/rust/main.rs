//! encoding: Rust's path calls, the control group. Paths are OsStr (bytes on
//! Unix), so nothing is transcoded; std copies each path into a NUL-terminated
//! stack buffer for the system call. One row adds what turning a result into a
//! String costs: UTF-8 validation only (into_string), no copy.
//! The names match classic.c and encoding_py.py (ASCII and non-ASCII).
mod harness;

use harness::{Case, Outcome};
use std::path::PathBuf;

const ASCII: [&str; 3] = ["workdir-ascii", "target-file.bin", "link-name"];
const NONASCII: [&str; 3] = ["工作目录-каталог-é", "目标文件-цель.bin", "链接-ссылка"];

struct Place {
    home: PathBuf,
    target: PathBuf,
    link: PathBuf,
    old_cwd: PathBuf,
    got: PathBuf,
    got_string: String,
    is_file: bool,
}

fn place(dir: Option<&str>, names: [&str; 3]) -> Result<Place, Outcome> {
    let dir = dir.ok_or(Outcome::Fail("--dir is required: the cases create a directory to stand in".into()))?;
    let fail = |e: std::io::Error| Outcome::Fail(e.to_string());
    let old_cwd = std::env::current_dir().map_err(fail)?;
    let home = PathBuf::from(dir).join(names[0]);
    std::fs::create_dir(&home).map_err(fail)?;
    std::env::set_current_dir(&home).map_err(fail)?;
    let home = std::fs::canonicalize(&home).map_err(fail)?;
    let target = home.join(names[1]);
    std::fs::OpenOptions::new().write(true).create_new(true).open(&target).map_err(fail)?;
    let link = PathBuf::from(names[2]);
    std::os::unix::fs::symlink(&target, &link).map_err(fail)?;
    Ok(Place { home, target, link, old_cwd, got: PathBuf::new(), got_string: String::new(), is_file: false })
}

fn setup_ascii(dir: Option<&str>) -> Result<Place, Outcome> { place(dir, ASCII) }
fn setup_nonascii(dir: Option<&str>) -> Result<Place, Outcome> { place(dir, NONASCII) }

fn leave(p: &mut Place) {
    let _ = std::fs::remove_file(p.home.join(&p.link));
    let _ = std::fs::remove_file(&p.target);
    let _ = std::env::set_current_dir(&p.old_cwd);
    let _ = std::fs::remove_dir(&p.home);
}

fn run_cwd(p: &mut Place, n: u64) -> Result<(), String> {
    for _ in 0..n {
        p.got = std::env::current_dir().map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn verify_cwd(p: &Place) -> Result<(), String> {
    if p.got != p.home { return Err(format!("current_dir gave {:?}, not {:?}", p.got, p.home)); }
    Ok(())
}

fn run_stat(p: &mut Place, n: u64) -> Result<(), String> {
    for _ in 0..n {
        p.is_file = std::fs::metadata(&p.target).map_err(|e| e.to_string())?.is_file();
    }
    Ok(())
}

fn verify_stat(p: &Place) -> Result<(), String> {
    if !p.is_file { return Err(format!("metadata of {:?} is not the regular file set up", p.target)); }
    Ok(())
}

fn run_readlink(p: &mut Place, n: u64) -> Result<(), String> {
    for _ in 0..n {
        p.got = std::fs::read_link(&p.link).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn run_readlink_string(p: &mut Place, n: u64) -> Result<(), String> {
    for _ in 0..n {
        let got = std::fs::read_link(&p.link).map_err(|e| e.to_string())?;
        p.got_string = got.into_os_string().into_string().map_err(|s| format!("{:?} is not UTF-8", s))?;
    }
    p.got = PathBuf::from(&p.got_string);
    Ok(())
}

fn verify_link(p: &Place) -> Result<(), String> {
    if p.got != p.target { return Err(format!("read_link gave {:?}, not {:?}", p.got, p.target)); }
    Ok(())
}

macro_rules! case {
    ($name:expr, $desc:expr, $setup:expr, $run:expr, $verify:expr) => {
        Case { name: $name, description: $desc, ops_per_iter: 1, setup: $setup, run: $run, verify: $verify, teardown: leave }
    };
}

fn main() {
    let cases = [
        case!("rust-getcwd", "std::env::current_dir", setup_ascii, run_cwd, verify_cwd),
        case!("rust-stat", "std::fs::metadata(path)", setup_ascii, run_stat, verify_stat),
        case!("rust-readlink", "std::fs::read_link(path)", setup_ascii, run_readlink, verify_link),
        case!("rust-readlink-string", "std::fs::read_link, result made a String (UTF-8 check)", setup_ascii,
              run_readlink_string, verify_link),
        case!("rust-getcwd-nonascii", "std::env::current_dir, non-ASCII path", setup_nonascii, run_cwd, verify_cwd),
        case!("rust-stat-nonascii", "std::fs::metadata(path), non-ASCII path", setup_nonascii, run_stat, verify_stat),
        case!("rust-readlink-nonascii", "std::fs::read_link(path), non-ASCII path", setup_nonascii, run_readlink,
              verify_link),
        case!("rust-readlink-string-nonascii", "std::fs::read_link, result made a String (UTF-8 check), non-ASCII path",
              setup_nonascii, run_readlink_string, verify_link),
    ];
    std::process::exit(harness::main("encoding-paths-rust", &cases));
}
