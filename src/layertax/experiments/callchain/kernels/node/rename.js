// callchain: one file renamed to a second name and back through Node's layer:
// fs.renameSync with string paths (UTF-16 strings converted to UTF-8 on every
// call) and with Buffer paths (bytes, no conversion).
'use strict';
const fs = require('fs');
const path = require('path');
const harness = require('./harness.js');

const MARKER = Buffer.from('layertax callchain marker\n');

function setup(dir, asBuffer) {
  if (!dir) throw new Error('--dir is required: rename cases work only in a private directory');
  const a = path.join(dir, 'layertax-file-a');
  const b = path.join(dir, 'layertax-file-b');
  fs.writeFileSync(a, MARKER, { flag: 'wx' });
  if (fs.existsSync(b)) throw new Error(`${b} already exists`);
  const p = { a, b, inode: fs.statSync(a).ino };
  if (asBuffer) { p.pa = Buffer.from(a); p.pb = Buffer.from(b); } else { p.pa = a; p.pb = b; }
  return p;
}

function verify(p) {
  let st;
  try { st = fs.statSync(p.a); } catch (e) { throw new Error(`after the loop ${p.a} is missing`); }
  if (st.ino !== p.inode) throw new Error(`${p.a} is a different file`);
  if (fs.existsSync(p.b)) throw new Error(`after the loop ${p.b} still exists`);
  if (!fs.readFileSync(p.a).equals(MARKER)) throw new Error(`${p.a} lost its contents`);
}

function teardown(p) {
  for (const f of [p.a, p.b]) { try { fs.unlinkSync(f); } catch (e) { /* already gone */ } }
}

function run(p, n) {
  const { pa, pb } = p;
  for (let i = 0; i < n; i++) {
    fs.renameSync(pa, pb);
    fs.renameSync(pb, pa);
  }
}

const cases = [
  { name: 'node-renamesync-string', description: 'fs.renameSync(string, string): UTF-16 -> UTF-8 on every call',
    opsPerIter: 2, setup: (d) => setup(d, false), run, verify, teardown },
  { name: 'node-renamesync-buffer', description: 'fs.renameSync(Buffer, Buffer): bytes, no conversion',
    opsPerIter: 2, setup: (d) => setup(d, true), run, verify, teardown },
];

process.exitCode = harness.main('callchain-rename-node', cases, 5000);
