/** The commands that run scenarios against the gateway (`small|large|memory|all`, `check`) and `report`. */
import { existsSync, mkdirSync } from 'fs';
import { loadavg } from 'os';
import { dirname, join, relative } from 'path';
import { Scenario } from '../lib/args';
import { readText, REPO_ROOT } from '../lib/gateway';
import { loadJfrSamples, startJfr, stopJfr, summarizeJfr } from '../lib/jfr';
import { loadProfile, summarizeProfile } from '../lib/profile';
import { readResults, ScenarioResult, writeResults } from '../lib/report';
import { sdkClient, smokeTest } from '../lib/sdk-load';
import { findWarp, warpVersion } from '../lib/warp';
import { runScenario } from '../scenarios';
import { Bench, localDate, log, monoToWallMs, REGION, Target, WORK_DIR } from './bench';
import { startEnvironment } from './environment';
import { record, resultsPaths } from './results';

function toolVersions(bench: Bench): Record<string, string> {
  const t: Record<string, string> = {};
  if (bench.warpBin && bench.args.client !== 'sdk')
    t.warp = `${warpVersion(bench.warpBin)} (${bench.warpBin})`;
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const sdk = require('@aws-sdk/client-s3/package.json').version;
    const storage = require('@aws-sdk/lib-storage/package.json').version;
    /* eslint-enable @typescript-eslint/no-require-imports */
    t['aws-sdk'] = `@aws-sdk/client-s3 ${sdk}, @aws-sdk/lib-storage ${storage}`;
  } catch {
    // package.json not exported: leave it out
  }
  return t;
}

/** CreateBucket, PutObject, GetObject, a streamed PutObject, DeleteObject: does the target serve S3? */
async function smokeCheck(bench: Bench, t: Target): Promise<{ ok: boolean; steps: string[] }> {
  const client = sdkClient(
    { endpoint: t.endpoint, region: REGION, accessKeyId: t.accessKey, secretAccessKey: t.secretKey },
    4,
    30_000,
  );
  return smokeTest(client, bench.bucket('smoke')).finally(() => client.destroy());
}

/** Runs `scenarios` against a started (or given) gateway, recording each in the day's results. */
export async function runScenarios(bench: Bench, scenarios: Scenario[]): Promise<number> {
  const a = bench.args;
  if (a.client !== 'sdk' && scenarios.some((s) => s !== 'memory')) {
    bench.warpBin = findWarp();
    if (!bench.warpBin)
      log(
        `warp not found (build it: npm run bench -- build-warp); ${a.client === 'warp' ? 'using the aws-sdk load generator instead' : 'aws-sdk only'}`,
      );
  }
  if (a.dryRun) {
    log(
      `would run ${scenarios.join(', ')} with ${bench.clients().join(' + ') || 'aws-sdk'}; warp: ${bench.warpBin ?? 'none'}`,
    );
    return 0;
  }
  const date = localDate();
  const env = await startEnvironment(bench);
  const tools = { ...toolVersions(bench), ...env.tools };
  const done: ScenarioResult[] = [];
  let failed = false;
  const cassandraPid = env.target.pids['cassandra'];
  let jfrFile: string | undefined;
  if (a.cassandraProfile) {
    try {
      if (!cassandraPid) throw new Error('--cassandra-profile: no pid for the local stack’s Cassandra node');
      jfrFile = join(WORK_DIR, bench.runStamp, 'cassandra.jfr');
      mkdirSync(dirname(jfrFile), { recursive: true });
      startJfr(cassandraPid, jfrFile);
    } catch (e) {
      await env.teardown();
      throw e;
    }
    log(`cassandra: JFR recording of pid ${cassandraPid} into ${relative(REPO_ROOT, jfrFile)}`);
  }
  try {
    const smoke = await smokeCheck(bench, env.target);
    for (const line of smoke.steps) log(`check: ${line}`);
    if (!smoke.ok) {
      log('the gateway does not serve PutObject/GetObject yet: nothing measured, no results written');
      return 3;
    }
    const startLoad: Record<string, string> = {};
    for (const name of scenarios) {
      startLoad[name] = loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
      const s = await runScenario(bench, name, env.target);
      s.notes.unshift(
        `Target: ${env.target.label}.`,
        `Load average when the scenario started: ${startLoad[name]}.`,
      );
      done.push(s);
      failed ||= !!s.error || s.checks.some((c) => !c.pass);
      log(
        `${name}: ${s.checks.filter((c) => c.pass).length}/${s.checks.length} checks pass → ${relative(REPO_ROOT, record(bench, tools, s, date))}`,
      );
    }
  } finally {
    // Before the teardown, which may stop the stack the bench started.
    if (jfrFile && cassandraPid) {
      try {
        stopJfr(cassandraPid);
      } catch (e) {
        log(`cassandra: JFR.stop failed: ${(e as Error).message}`);
      }
    }
    await env.teardown();
  }
  if (jfrFile && existsSync(jfrFile)) {
    log(`summarizing the Cassandra JFR recording ${relative(REPO_ROOT, jfrFile)}`);
    const samples = await loadJfrSamples(jfrFile);
    for (const s of done) {
      const phases = bench.windows
        .filter((w) => w.scenario === s.name)
        .map((w) => ({ phase: w.phase, summary: summarizeJfr(samples, monoToWallMs(w.fromUs), monoToWallMs(w.toUs)) }));
      s.cassandraProfile = { file: relative(REPO_ROOT, jfrFile), phases };
      record(bench, tools, s, date);
      for (const ph of phases)
        log(
          `cassandra ${s.name} / ${ph.phase}: ${ph.summary.buckets.map((b) => `${b.name} ${b.pct.toFixed(1)}%`).join(', ')}`,
        );
    }
  }
  const profile = env.profileFile();
  if (profile) {
    log(`summarizing CPU profile ${relative(REPO_ROOT, profile)}`);
    const p = loadProfile(profile);
    for (const s of done) {
      const phases = bench.windows
        .filter((w) => w.scenario === s.name)
        .map((w) => ({ phase: w.phase, summary: summarizeProfile(p, w.fromUs, w.toUs) }));
      s.profile = { file: relative(REPO_ROOT, profile), phases };
      record(bench, tools, s, date);
      for (const ph of phases)
        log(
          `profile ${s.name} / ${ph.phase}: ${ph.summary.selfByFunction
            .slice(0, 5)
            .map((h) => `${h.name} ${h.pct.toFixed(1)}%`)
            .join(', ')}`,
        );
    }
  } else if (a.profile && !a.endpoint) {
    log('no CPU profile was written (did the gateway exit gracefully?)');
  }
  log(`results: ${relative(REPO_ROOT, resultsPaths(bench, date).md)}`);
  return failed ? 1 : 0;
}

/** Does the gateway serve S3 yet? Exit 0 = yes, 3 = no. */
export async function check(bench: Bench): Promise<number> {
  const env = await startEnvironment(bench);
  try {
    const smoke = await smokeCheck(bench, env.target);
    for (const line of smoke.steps) process.stdout.write(`${line}\n`);
    process.stdout.write(
      smoke.ok ? 'gateway serves S3: ready to benchmark\n' : 'gateway does not serve S3 yet\n',
    );
    return smoke.ok ? 0 : 3;
  } finally {
    await env.teardown();
  }
}

/** `report`: rewrites a day's Markdown from its JSON (after the analysis was edited). */
export function report(bench: Bench, date = localDate()): number {
  const paths = resultsPaths(bench, date);
  const results = readResults(paths.json);
  if (!results) {
    process.stderr.write(`no results at ${relative(REPO_ROOT, paths.json)}\n`);
    return 1;
  }
  writeResults(paths.json, paths.md, results, readText(paths.analysis));
  process.stdout.write(`${relative(REPO_ROOT, paths.md)}\n`);
  return 0;
}
