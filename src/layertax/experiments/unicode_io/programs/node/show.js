// The message through process.stdout.write: Node encodes strings as UTF-8 whatever
// the locale.
"use strict";

const LINES = [
  "ascii: Hello, world\n",
  "latin: caf\u00e9, na\u00efve, \u00c6r\u00f8sk\u00f8bing\n",
  "chinese: \u4e2d\u6587\u8f93\u51fa\n",
  "emoji: \u{1f600}\n",
  "end: the last line, in ASCII\n",
];

for (const line of LINES) {
  process.stdout.write(line);
}
