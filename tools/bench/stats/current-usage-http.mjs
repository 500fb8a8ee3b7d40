#!/usr/bin/env node
// Current-usage latency over HTTP against two real stats app processes in one consumer group
// (issue 10, routing to the owner of the bucket's usage partition).
//
//   node tools/bench/stats/current-usage-http.mjs --cassandra-port 9042 --kafka 127.0.0.1:9092 [--buckets 20] [--queries 2000] [--rounds 3]
//
// Fresh keyspace and cluster name (topic); one completed empty scan pass 30 min ago (combined by
// the apps); 120 usage deltas per bucket through Kafka, half the buckets in partitions of each
// app. Each round asks `--queries` times for random buckets in four modes: `owner` (the replica
// that reads the bucket's partition: memory), `non-owner routed` (the other replica, which forwards
// once to the owner), `non-owner local` (the other replica told not to forward, by the forwarded
// header: its Cassandra path, what every non-owner answered before routing) and `service` (a random
// replica, as behind one Service). Prints p50 / p99 / max per round and the medians.
// Results: tools/bench/stats/CURRENT-USAGE-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './current-usage-http-run.ts');
