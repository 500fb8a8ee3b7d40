#!/usr/bin/env node
// Current-usage latency over HTTP against two real stats app processes in one consumer group
// (issue 10, routing to the owner of the bucket's usage partition), compiled and started as the
// image starts them (`npm run build`, `node --enable-source-maps dist/apps/stats/src/main.js`,
// LOG_LEVEL=info as in deploy/k8s/base/configmap.yaml).
//
//   node tools/bench/stats/current-usage-http.mjs [--baseline <commit>]... [--queries 3000] [--rounds 3]
//        [--swc] [--buckets 20] [--consume-rate 2000] [--mode-seconds 15] [--stack-port 39142 | --cassandra-port P --kafka H:P]
//
// Starts everything it needs and stops it: by default a private Cassandra + Kafka in
// .stack-usage-bench on ports 39142-39145 (purged at the end); with --cassandra-port/--kafka the
// given stack instead. Each --baseline commit is exported (git archive) and compiled into
// $TMPDIR/ostore-usage-bench-<commit> (kept for the next run) and runs a pair of apps of its own
// beside this checkout's pair (own topic, own buckets, one keyspace), the builds taking turns
// within every round; --swc adds this checkout's sources under the TypeScript loader (as earlier
// runs of this bench ran them). One completed empty scan pass 30 min ago; 120 usage deltas per bucket
// through Kafka, half the buckets in partitions of each app. Each round asks `--queries` times
// for random buckets in five modes: `owner` (the replica that reads the bucket's partition:
// memory), `non-owner routed` (the other replica, which forwards once), `non-owner local` (the
// other replica with the forwarded header: its Cassandra path), `service` (a random replica, as
// behind one Service) and `service, consuming` (the same while `--consume-rate` deltas/s of other
// buckets are consumed); a mode of one build stops after --mode-seconds even short of its queries,
// so that a loaded box cannot stretch the run (the count is printed). Every answer is checked to be exact (exit 1 otherwise). Prints p50 / p99
// / p99.9 / max per round and the medians, the apps' CPU per request (/proc), their event-loop
// delay during the queries (prom-client's nodejs_eventloop_lag_*), and the ratios against each
// baseline. Results: tools/bench/stats/CURRENT-USAGE-RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, './current-usage-http-run.ts');
