#!/usr/bin/env node
// Lifecycle scan bench: versions per second of ONE scanner (the local scan) on this machine.
//
//   node tools/bench/lifecycle/scan.mjs [--versions 200000] [--per-object 2] [--per-dir 200]
//        [--fetch 2000] [--passes 2] [--due 0.1] [--keep] [--row-body-bytes 0]
//
// Starts (or finds) the local stack, writes `--versions` rows of `versions` into a fresh keyspace
// (directly through the metastore repositories: the scan reads only that table, and filling it
// through the S3 core would take far longer than the scan), configures lifecycle rules that make
// about `--due` of the objects due, then runs the scanner's versions pass in this process with
// the app's wiring (pinned session at consistency ONE, no rate limit) `--passes` times, publishing
// candidates to Kafka. Reports rows/s, candidates, and the CPU the scanner and Cassandra used.
// Results: tools/bench/lifecycle/SCAN-RESULTS.md.
import { runMain } from './run-ts.mjs';

runMain(import.meta.url, './scan-run.ts');
