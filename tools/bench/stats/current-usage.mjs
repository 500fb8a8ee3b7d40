#!/usr/bin/env node
// Current-usage latency bench: how long CurrentUsageReader.current(bucket) takes (what the stats
// app's GET /usage/buckets/:bucketId answers), against the local node's Cassandra.
//
//   node tools/bench/stats/current-usage.mjs [--buckets 50] [--queries 2000] [--rounds 3] [--concurrency 1] [--port 9042] [--keep]
//
// Fresh keyspace; one combined snapshot of every bucket with its cut an hour ago; an hour of usage
// deltas recorded through the write path (12 five-minute aggregates per bucket after the cut).
// Each round asks `--queries` times for random buckets through three readers: `owned`, as the
// stats app runs it (the aggregates since the cut held in memory for the partitions it reads: no
// Cassandra read once seeded), `cached` (combination row reused 1 s, bucket rows kept until the cut
// moves: one read per answer) and `uncached` (three reads); prints p50 / p99 / max per round and
// their medians. Results: tools/bench/stats/CURRENT-USAGE-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './current-usage-run.ts');
