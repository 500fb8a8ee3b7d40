/** The day's results files: paths and the merge-and-rewrite of one scenario. */
import { join } from 'path';
import { readText } from '../lib/gateway';
import { machineInfo } from '../lib/machine';
import { mergeResults, readResults, ScenarioResult, writeResults } from '../lib/report';
import { localStack } from '../lib/stack';
import { Bench, BENCH_DIR } from './bench';

/** Where a run's results files go: `--out`, else tools/bench/results. */
export function resultsDir(bench: Bench): string {
  return bench.args.out ?? join(BENCH_DIR, 'results');
}

/** The results files of `date` (under --out, else tools/bench/results). */
export function resultsPaths(bench: Bench, date: string): { json: string; md: string; analysis: string } {
  const dir = resultsDir(bench);
  return {
    json: join(dir, `${date}-gateway.json`),
    md: join(dir, `${date}-gateway.md`),
    analysis: join(dir, `${date}-gateway.analysis.md`),
  };
}

/** Merges `s` into the day's results and rewrites them; returns the Markdown path. */
export function record(bench: Bench, tools: Record<string, string>, s: ScenarioResult, date: string): string {
  const paths = resultsPaths(bench, date);
  const machine = machineInfo(process.env.OSTORE_JAVA ?? safeJava());
  const merged = mergeResults(readResults(paths.json), { date, machine, tools }, s);
  writeResults(paths.json, paths.md, merged, readText(paths.analysis));
  return paths.md;
}

function safeJava(): string {
  try {
    return localStack().findJava17() ?? 'java';
  } catch {
    return 'java';
  }
}
