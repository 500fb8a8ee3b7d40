#!/usr/bin/env node
// Lifecycle apply bench: lifecycle deletions per second of ONE scheduler process on this machine.
//
//   node tools/bench/lifecycle/apply.mjs [--objects 10000] [--mode unversioned|versioned|noncurrent|stale-nulls]
//        [--backend kafka|cassandra] [--partitions 3] [--concurrency 48] [--log-level info] [--keep]
//
// Starts (or finds) the local stack, fills a fresh keyspace with objects due for expiration (a
// debug lifecycle day of 1 s), starts the real scheduler app (apps/scheduler/src/main.ts) with
// the deployed defaults but no rate limit, publishes one candidate per object spread over the
// partitions (as that many scanners would), and times the scheduler from the first applied
// deletion to the last through its /metrics. `stale-nulls`: each key is written twice leaving
// the replaced null version (S3_NULL_CONVERGENCE=scan), and the candidates ask the scheduler to
// converge it (ConvergeNulls). Results: tools/bench/lifecycle/APPLY-RESULTS.md.
import { runMain } from './run-ts.mjs';

runMain(import.meta.url, './apply-run.ts');
