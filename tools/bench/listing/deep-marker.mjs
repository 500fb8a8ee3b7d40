#!/usr/bin/env node
// Deep start keys without a delimiter: the latency and Cassandra requests of a ListObjectsV2 walk
// (every page, following the continuation positions) after a start-after 1,000 levels deep, with
// the listing level budget (after) against no budget (before: two queries per level, the code
// before 2026-12-02), interleaved round by round in one process on one keyspace.
//
//   node tools/bench/listing/deep-marker.mjs [--rounds 5] [--listings 5] [--depth 1000]
//
// Results: tools/bench/results/2026-12-02-deep-marker.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, '../listing/deep-marker-run.ts');
