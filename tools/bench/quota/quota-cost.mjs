#!/usr/bin/env node
// Quota check cost: gateway CPU per PUT into a bucket WITH a quota against one without, in one run.
//
//   npm run build && node tools/bench/quota/quota-cost.mjs [--rounds 6] [--puts 300] [--concurrency 8] [--size 1024] [--from-sources] [--ledger-interval-ms N]
//
// Uses the running local stack (127.0.0.1:9042, Kafka 9092) or OSTORE_BENCH_CASSANDRA/KAFKA, starts
// one gateway on a fresh keyspace, and alternates rounds of PUTs into the two buckets (the order
// flips every round, so drift of the shared machine falls on both). The gateway's CPU (utime +
// stime from /proc) over each round gives ms of CPU per PUT; medians over the rounds and of the
// per-round differences are printed with the load average. The gateway runs from dist/ (checked to
// be newer than the sources) unless --from-sources. Results: tools/bench/quota/QUOTA-COST-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './quota-cost-run.ts');
