// The probe kernel in Node.js (tests/test_protocol_conformance.py): "count" counts and checks
// its count, "wrong" is always off by one and must be refused, "skip" cannot run here.
'use strict';
const harness = require('./harness.js');

function setup() { return { n: 0, expect: 0 }; }
function run(c, iters) { for (let i = 0; i < iters; i++) c.n++; c.expect += iters; }
function verify(c) { if (c.n !== c.expect) throw new Error(`wrong result: expected ${c.expect}, got ${c.n}`); }

const cases = [
  { name: 'count', description: 'counts to iters and checks the count', opsPerIter: 3, setup, run, verify },
  { name: 'wrong', description: 'always one short: a wrong answer', opsPerIter: 1, setup,
    run: (c, iters) => { run(c, iters); c.n--; }, verify },
  { name: 'skip', description: 'cannot run here', opsPerIter: 1,
    setup: () => { throw new harness.Skip('feature X is not available here'); }, run, verify },
];

process.exitCode = harness.main('probe-node', cases, 0);
