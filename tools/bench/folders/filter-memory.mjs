#!/usr/bin/env node
// The Bloom filter's measured false-positive rate on a synthetic tree of 1,000,000 directories, and
// its memory next to a hash set of the same directories (no stack needed):
//
//   node --expose-gc tools/bench/folders/filter-memory.mjs [--directories 1000000] [--fpr 0.01,0.001]
//
// Results: tools/bench/folders/RESULTS.md.
import { runMain } from '../lifecycle/run-ts.mjs';

runMain(import.meta.url, '../folders/filter-memory-run.ts');
