#!/usr/bin/env node
// Encryption cost: SSE-S3 on against off, PUT and GET, a 4 KiB object and a large one, in one run.
//
//   node tools/bench/sse/sse-cost.mjs [--rounds 3] [--small-ops 300] [--large-ops 6] [--large-mib 16] [--concurrency 4]
//
// Uses the running local stack (127.0.0.1:9042, Kafka 9092) or OSTORE_BENCH_CASSANDRA/KAFKA, starts
// one gateway on a fresh keyspace with a master key, and alternates rounds into a plain bucket and
// one whose objects are sent with `x-amz-server-side-encryption: AES256` (the order flips every
// round, so drift of the shared machine falls on both). Per round: wall time and the gateway's CPU
// (utime + stime from /proc); the report gives per-round ratios on/off and their medians.
// Results: tools/bench/sse/SSE-COST-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './sse-cost-run.ts');
