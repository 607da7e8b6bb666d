// The kernel protocol for Node.js kernels (docs/method/protocol.md), mirroring native/harness.c.
//
// Node cannot pin itself; the engine pins the process before exec and the
// harness reports what /proc says. It raises its own priority when allowed
// (os.setPriority), warms the JIT up with a fixed number of iterations (the
// same in every run, so counting runs can take differences), times with
// process.hrtime.bigint (CLOCK_MONOTONIC), verifies after every sample.
'use strict';
const fs = require('fs');
const os = require('os');

class Skip extends Error {}

function emit(obj) {
  fs.writeSync(1, JSON.stringify(obj) + '\n');
}

function procStatus(key) {
  try {
    const line = fs.readFileSync('/proc/thread-self/status', 'utf8').split('\n').find((l) => l.startsWith(key + ':'));
    return line ? line.slice(key.length + 1).trim() : '?';
  } catch (e) {
    return '?';
  }
}

function contextSwitches() {
  const v = Number(procStatus('voluntary_ctxt_switches'));
  const i = Number(procStatus('nonvoluntary_ctxt_switches'));
  return Number.isFinite(v) && Number.isFinite(i) ? [v, i] : null;
}

function parseOptions(argv) {
  const o = { case: null, dir: null, samples: 5, minSampleNs: 10_000_000, iters: 0, warmupIters: null, settleNs: 0,
    raise: false };
  const numeric = { '--samples': 'samples', '--min-sample-ns': 'minSampleNs', '--iters': 'iters', '--warmup-iters': 'warmupIters',
    '--settle-ns': 'settleNs' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--raise-priority') { o.raise = true; continue; }
    if (i + 1 >= argv.length) throw new Error(`missing value for ${a}`);
    const v = argv[++i];
    if (a === '--case') o.case = v;
    else if (a === '--dir') o.dir = v;
    else if (a === '--cpu') { if (!/^\d+$/.test(v)) throw new Error(`bad value for --cpu: ${v}`); }  // pinned by the engine
    else if (numeric[a] && /^\d+$/.test(v)) o[numeric[a]] = Number(v);
    else throw new Error(`bad option or value: ${a} ${v}`);
  }
  if (o.samples < 1) throw new Error('--samples must be positive');
  return o;
}

function priority(raise) {
  if (!raise) return 'unchanged (not requested)';
  try {
    os.setPriority(0, -10);
    return 'nice -10';
  } catch (e) {
    return `unchanged (not permitted: ${e.code || e.message})`;
  }
}

function timed(c, state, iters) {
  const s0 = contextSwitches();
  const t0 = process.hrtime.bigint();
  c.run(state, iters);
  const ns = Number(process.hrtime.bigint() - t0) || 1;
  const s1 = contextSwitches();
  c.verify(state);
  const sample = { case: c.name, iters, ops: iters * c.opsPerIter, ns };
  if (s0 && s1) { sample.csw_vol = s1[0] - s0[0]; sample.csw_invol = s1[1] - s0[1]; }
  return sample;
}

function main(kernel, cases, defaultWarmupIters) {
  let o;
  try {
    o = parseOptions(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(e.message + '\n');
    return 2;
  }
  const c = cases.find((x) => x.name === o.case);
  if (!c) { emit({ case: o.case, error: 'no such case in this kernel' }); return 1; }
  const warmup = o.warmupIters === null ? defaultWarmupIters : o.warmupIters;
  const prio = priority(o.raise);
  let state;
  try {
    state = c.setup(o.dir);
  } catch (e) {
    if (e instanceof Skip) { emit({ case: c.name, skip: e.message }); return 3; }
    emit({ case: c.name, error: `setup: ${e.message}` });
    return 1;
  }
  try {
    const cpus = procStatus('Cpus_allowed_list');
    let overhead = Infinity;
    for (let i = 0; i < 2000; i++) {
      const a = process.hrtime.bigint();
      overhead = Math.min(overhead, Number(process.hrtime.bigint() - a));
    }
    emit({ kernel, case: c.name, description: c.description, language: 'node',
      runtime: `node ${process.version} (V8 ${process.versions.v8})`, clock: 'process.hrtime.bigint (CLOCK_MONOTONIC)',
      clock_res_ns: 1, clock_overhead_ns: overhead, ops_per_iter: c.opsPerIter, warmup_iters: warmup, settle_ns: o.settleNs,
      pinned: /^\d+$/.test(cpus), pin: `cpus allowed ${cpus} (set by the engine)`, priority: prio });
    if (warmup > 0) timed(c, state, warmup);
    let iters = o.iters;
    if (!iters) {
      iters = 1;
      for (;;) {
        const ns = timed(c, state, iters).ns;
        if (ns >= o.minSampleNs) break;
        iters = Math.floor(iters * Math.min(100, Math.max(2, (1.25 * o.minSampleNs) / ns))) + 1;
      }
    }
    // V8's compiler threads go on optimizing for a while after the warm-up, on the CPU this
    // process is pinned to: untimed samples for settleNs first let them finish
    // (docs/method/statistics.md, "Why JIT runtimes' kernels settle").
    for (let spent = 0; spent < o.settleNs; ) spent += timed(c, state, iters).ns;
    for (let i = 0; i < o.samples; i++) emit(timed(c, state, iters));
    return 0;
  } catch (e) {
    emit({ case: c.name, error: e.message });
    return 1;
  } finally {
    if (c.teardown) c.teardown(state);
  }
}

module.exports = { main, Skip };
