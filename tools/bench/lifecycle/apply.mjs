#!/usr/bin/env node
// Lifecycle apply bench: lifecycle deletions per second of ONE scheduler process on this machine.
//
//   node tools/bench/lifecycle/apply.mjs [--objects 10000] [--mode unversioned|versioned|noncurrent]
//        [--backend kafka|cassandra] [--partitions 3] [--concurrency 48] [--log-level info] [--keep]
//
// Starts (or finds) the local stack, fills a fresh keyspace with objects due for expiration (a
// debug lifecycle day of 1 s), starts the real scheduler app (apps/scheduler/src/main.ts) with
// the deployed defaults but no rate limit, publishes one candidate per object spread over the
// partitions (as that many scanners would), and times the scheduler from the first applied
// deletion to the last through its /metrics. Results: tools/bench/lifecycle/APPLY-RESULTS.md.
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
process.env.SWC_NODE_PROJECT ??= resolve(root, 'tsconfig.base.json');
const require = createRequire(import.meta.url);
require('@swc-node/register');
const { main } = require('./apply-run.ts');

main(process.argv.slice(2)).then(
  (code) => process.exit(code ?? 0),
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
