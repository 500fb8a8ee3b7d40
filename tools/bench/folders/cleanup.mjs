#!/usr/bin/env node
// Empty-directory cleanup bench: filter build keys/s and directories checked/s of ONE scanner, and
// the tombstone guard (a parent with many empty children cleaned over several cycles, its
// delimiter listing latency before, during and after, beside a parent that never had them).
//
//   node tools/bench/folders/cleanup.mjs [--children 50000] [--per-pass 10000] [--live 10] [--listings 21]
//     [--slow-listings 3] [--final-rounds 3] [--final-listings 50] [--gc-grace S  (then: wait S past the last delete, nodetool flush + compact, list again)]
//
// Results: tools/bench/folders/RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, '../folders/cleanup-run.ts');
