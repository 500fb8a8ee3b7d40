#!/usr/bin/env node
// Usage event bench: usage deltas per second ONE stats write path (UsageRecorder) records on this machine.
//
//   node tools/bench/stats/record.mjs [--events 300000] [--rounds 3] [--buckets 50] [--batch 1000] [--partitions 3] [--port 9042] [--keep]
//       [--layouts 1,2] [--cassandra-pid <pid>] [--store-only] [--decode fast|schema]
//
// Uses the running local stack's Cassandra (127.0.0.1:9042), migrates a fresh keyspace, and feeds
// the recorder batches as the queue transport would: `--partitions` batches at a time, each batch
// the deltas of a few buckets (the usage topic is keyed by bucket), events spread over the last
// hour. Times from the first batch to the last resolved one, then replays every batch once and
// times that too (all dedup hits). `--layouts 1,2` compares usage-event layouts in one run (each
// its own buckets and local store, rounds alternating); `--cassandra-pid` prints the node's CPU
// per delta beside the stats process's; `--store-only` also times, each round, the raw-event writes alone
// (the same kind of deltas straight into UsageEventStore: the floor one row per event sets); `--decode fast|schema`
// decodes each delta from its queue message in the timed rounds, as the consumer does (kafkajs not included). Results:
// tools/bench/stats/RECORD-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './record-run.ts');
