// scan, Node.js: fs.readSync into a 64 KiB Buffer with a byte loop, and
// fs.readFileSync of the whole file into one Buffer, then the same loop.
'use strict';
const fs = require('fs');
const harness = require('./harness.js');

function env(name) {
  const v = process.env[name];
  if (v === undefined) throw new Error(`${name} is not set: scan kernels run under \`layertax run scan\``);
  return v;
}

function setup() {
  const path = env('LAYERTAX_SCAN_FILE');
  const size = Number(env('LAYERTAX_SCAN_BYTES'));
  if (fs.statSync(path).size !== size) throw new Error(`${path} changed size`);
  return { path, size, expect: Number(env('LAYERTAX_SCAN_COUNT')), got: -1, fd: fs.openSync(path, 'r'),
    buf: Buffer.alloc(64 << 10) };
}

function countBytes(buf, end) {
  let n = 0;
  for (let i = 0; i < end; i++) {
    const b = buf[i];
    if (b === 0x63 || b === 0x43 || b === 0x67 || b === 0x47) n++;
  }
  return n;
}

function runRead(s, iters) {
  for (let it = 0; it < iters; it++) {
    let n = 0;
    let pos = 0;
    for (;;) {
      const got = fs.readSync(s.fd, s.buf, 0, s.buf.length, pos);
      if (got === 0) break;
      n += countBytes(s.buf, got);
      pos += got;
    }
    s.got = n;
  }
}

function runReadFile(s, iters) {
  for (let it = 0; it < iters; it++) {
    const all = fs.readFileSync(s.path);
    s.got = countBytes(all, all.length);
  }
}

function verify(s) {
  if (s.got !== s.expect) throw new Error(`counted ${s.got} C/G/c/g bytes, expected ${s.expect}`);
}

function teardown(s) { fs.closeSync(s.fd); }

const cases = [
  { name: 'node-read', description: 'fs.readSync 64 KiB into a Buffer, byte loop', opsPerIter: 1,
    setup, run: runRead, verify, teardown },
  { name: 'node-readfile', description: 'fs.readFileSync of the whole file, byte loop', opsPerIter: 1,
    setup, run: runReadFile, verify, teardown },
];

process.exitCode = harness.main('scan-node', cases, 1);
