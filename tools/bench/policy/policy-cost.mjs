#!/usr/bin/env node
// Authorization cost: gateway CPU per 4 KiB GET from buckets without a policy (ObjectWriter, and the
// default BucketOwnerEnforced) and with a 12-statement policy, alternating in one run (issue 12).
//
//   npm run build && node tools/bench/policy/policy-cost.mjs [--rounds 5] [--gets 600] [--concurrency 8] [--objects 100] [--from-sources]
//
// Uses the running local stack (127.0.0.1:9042, Kafka 9092) or OSTORE_BENCH_CASSANDRA/KAFKA, starts
// one gateway on a fresh keyspace, and reverses the order of the buckets every round. Results:
// tools/bench/policy/POLICY-COST-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './policy-cost-run.ts');
