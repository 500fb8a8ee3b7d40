#!/usr/bin/env node
// Wide-directory lifecycle bench (issue 4): ONE directory with 200,000 objects, 90 % of them
// expired by a lifecycle rule; the scan and the cleanup must complete and the directory must
// still list.
//
//   node tools/bench/lifecycle/wide-directory.mjs [--objects 200000] [--layout interleaved|contiguous|both]
//        [--delete 0.9] [--concurrency 64] [--scheduler-concurrency 48] [--keep]
//
// Per layout, in a fresh keyspace: starts a gateway (listings go through it, ListObjectsV2 with
// the AWS SDK), writes the objects through the S3 core (the gateway's object service, in this
// process), measures the listings of `wide/` (first page, a page from the middle, the full walk),
// starts the real scheduler app (debug lifecycle day of 1 s, no rate limit), runs one local scan
// pass in this process with the scanner app's wiring, waits until the scheduler has handled every
// candidate, measures the listings again (tombstones still present: no compaction), and scans once
// more. Results: tools/bench/lifecycle/WIDE-DIRECTORY-RESULTS.md (JSON in tools/bench/.work/).
import { runMain } from './run-ts.mjs';

runMain(import.meta.url, './wide-directory-run.ts');
