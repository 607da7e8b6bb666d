// The message through print!: Rust strings are UTF-8 and std never consults the
// locale, so the bytes pass through unchanged.
const LINES: [&str; 5] = [
    "ascii: Hello, world\n",
    "latin: caf\u{e9}, na\u{ef}ve, \u{c6}r\u{f8}sk\u{f8}bing\n",
    "chinese: \u{4e2d}\u{6587}\u{8f93}\u{51fa}\n",
    "emoji: \u{1f600}\n",
    "end: the last line, in ASCII\n",
];

fn main() {
    for line in LINES.iter() {
        print!("{}", line);
    }
}
