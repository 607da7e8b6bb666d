// encoding: Node's path calls. Strings are UTF-16 (or Latin-1) in V8 and are
// converted to UTF-8 on every call; a Buffer path is bytes. Results come back
// as a string (decoded) or, with {encoding: 'buffer'}, as bytes.
// process.cwd() is cached by Node in JavaScript after its first call (the cache
// is dropped on chdir), so its row shows a shim that avoided the call.
// The names match classic.c and encoding_py.py (ASCII and non-ASCII).
'use strict';
const fs = require('fs');
const path = require('path');
const harness = require('./harness.js');

const NAMES = {
  false: ['workdir-ascii', 'target-file.bin', 'link-name'],
  true: ['工作目录-каталог-é', '目标文件-цель.bin', '链接-ссылка'],
};

function setup(dir, nonascii, asBuffer) {
  if (!dir) throw new Error('--dir is required: the cases create a directory to stand in');
  const [homeName, targetName, linkName] = NAMES[nonascii];
  const p = { oldCwd: process.cwd(), asBuffer };
  fs.mkdirSync(path.join(dir, homeName), { mode: 0o700 });
  process.chdir(path.join(dir, homeName));
  p.home = fs.realpathSync('.');
  p.target = path.join(p.home, targetName);
  p.link = linkName;
  fs.closeSync(fs.openSync(p.target, 'wx'));
  fs.symlinkSync(p.target, p.link);
  p.targetArg = asBuffer ? Buffer.from(p.target) : p.target;  // prepared once: the loop does not convert
  p.linkArg = asBuffer ? Buffer.from(p.link) : p.link;
  return p;
}

function teardown(p) {
  for (const f of [path.join(p.home, p.link), p.target]) { try { fs.unlinkSync(f); } catch (e) { /* gone */ } }
  process.chdir(p.oldCwd);
  try { fs.rmdirSync(p.home); } catch (e) { /* the engine removes the directory anyway */ }
}

function runCwd(p, n) {
  for (let i = 0; i < n; i++) p.got = process.cwd();
}

function runStat(p, n) {
  const t = p.targetArg;
  for (let i = 0; i < n; i++) p.got = fs.statSync(t);
}

function runReadlink(p, n) {
  const l = p.linkArg;
  const options = p.asBuffer ? { encoding: 'buffer' } : undefined;
  for (let i = 0; i < n; i++) p.got = fs.readlinkSync(l, options);
}

function verifyCwd(p) {
  if (p.got !== p.home) throw new Error(`process.cwd() gave ${p.got}, not ${p.home}`);
}

function verifyStat(p) {
  if (!p.got.isFile()) throw new Error(`statSync of ${p.target} is not the regular file set up`);
}

function verifyReadlink(p) {
  const want = p.asBuffer ? Buffer.from(p.target) : p.target;
  const same = p.asBuffer ? Buffer.isBuffer(p.got) && p.got.equals(want) : p.got === want;
  if (!same) throw new Error(`readlinkSync gave ${p.got}, not ${p.target}`);
}

const cases = [];
for (const nonascii of [false, true]) {
  const suffix = nonascii ? '-nonascii' : '';
  const where = nonascii ? ', non-ASCII path' : '';
  const kase = (name, description, asBuffer, run, verify) => cases.push({
    name: name + suffix, description: description + where, opsPerIter: 1,
    setup: (d) => setup(d, nonascii, asBuffer), run, verify, teardown,
  });
  kase('node-getcwd', 'process.cwd(): cached in JavaScript after the first call', false, runCwd, verifyCwd);
  kase('node-stat-string', 'fs.statSync(string): UTF-8 made on every call', false, runStat, verifyStat);
  kase('node-stat-buffer', 'fs.statSync(Buffer): bytes, no conversion', true, runStat, verifyStat);
  kase('node-readlink-string', 'fs.readlinkSync(string) -> string: converted both ways', false, runReadlink, verifyReadlink);
  kase('node-readlink-buffer', "fs.readlinkSync(Buffer, {encoding: 'buffer'}) -> Buffer", true, runReadlink, verifyReadlink);
}

process.exitCode = harness.main('encoding-paths-node', cases, 20000);
