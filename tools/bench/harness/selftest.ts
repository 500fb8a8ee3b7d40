/** `selftest`: every scenario, briefly, against an in-memory fake S3 (the tooling, not the gateway). */
import { ChildProcess, spawn } from 'child_process';
import { join, relative } from 'path';
import { scenariosOf } from '../lib/args';
import { newestCpuProfile, REPO_ROOT } from '../lib/gateway';
import { loadProfile, summarizeProfile } from '../lib/profile';
import { ScenarioResult } from '../lib/report';
import { findWarp, liveChildren } from '../lib/warp';
import { runScenario } from '../scenarios';
import { Bench, BENCH_DIR, localDate, log, MiB, Target, WORK_DIR } from './bench';
import { record } from './results';

/** Spawns the fake S3 (selftest) as its own process; resolves with its address once it listens. */
async function startFakeS3(profileDir?: string): Promise<{ child: ChildProcess; host: string }> {
  const nodeArgs = ['-r', '@swc-node/register'];
  if (profileDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  const child = spawn(process.execPath, [...nodeArgs, join(BENCH_DIR, 'lib', 'fake-s3-main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, SWC_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.base.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const host = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('fake S3 did not start within 60 s')), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /listening (\S+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`fake S3 exited (${code})`)));
  });
  return { child, host };
}

/** Every scenario, briefly, against the in-memory fake S3: proves the tooling, measures nothing real. */
export async function selftest(bench: Bench): Promise<number> {
  const a = bench.args;
  // warp skips its report below ~3 measured seconds (it leaves out the first and last partial ones)
  a.smallDurationMs = Math.min(a.smallDurationMs, 7000);
  a.largeDurationMs = Math.min(a.largeDurationMs, 7000);
  a.smallObjects = Math.min(a.smallObjects, 200);
  a.largeObjects = Math.min(a.largeObjects, 4);
  a.largeSize = Math.min(a.largeSize, 16 * MiB);
  a.memorySize = Math.min(a.memorySize, 256 * MiB);
  if (a.client === 'warp') a.client = 'both';
  bench.warpBin = findWarp();
  const profileDir = a.profile ? join(WORK_DIR, bench.runStamp, 'cpuprofile') : undefined;
  const fake = await startFakeS3(profileDir);
  log(
    `selftest: fake S3 at ${fake.host} (pid ${fake.child.pid}); warp: ${bench.warpBin ?? 'none (sdk only)'}`,
  );
  const target: Target = {
    endpoint: `http://${fake.host}`,
    host: fake.host,
    accessKey: 'AKIASELFTESTSELFTEST',
    secretKey: 'selftest-secret-selftest-secret',
    gatewayPid: fake.child.pid,
    pids: { 'fake S3': fake.child.pid, 'client+children': process.pid },
    label: 'in-memory fake S3 (selftest)',
  };
  const date = localDate();
  const out = a.out ?? join(WORK_DIR, 'selftest');
  bench.args.out = out;
  const problems: string[] = [];
  const done: ScenarioResult[] = [];
  try {
    for (const name of scenariosOf('selftest')) {
      const s = await runScenario(bench, name, target);
      done.push(s);
      if (s.error) problems.push(`${name}: ${s.error}`);
      for (const m of s.measurements) {
        if (!(m.objPerSec > 0) || m.errors)
          problems.push(`${name}: ${m.op} ${m.client}: ${m.objPerSec} obj/s, ${m.errors} errors`);
        if ((m.op === 'PUT' || m.op === 'GET') && !(m.latencyMs && m.latencyMs.p99 > 0))
          problems.push(`${name}: ${m.op} ${m.client}: no latency percentiles`);
      }
      const expected = (name === 'memory' ? 2 : 2 * bench.clients().length) as number;
      if (s.measurements.length !== expected)
        problems.push(`${name}: ${s.measurements.length} measurements, expected ${expected}`);
      if (name === 'memory' && !(s.memory && s.memory.samples > 5 && s.memory.maxMiB > 0))
        problems.push('memory: RSS sampler got no samples');
      record(bench, { selftest: 'fake S3, not the gateway' }, s, date);
    }
  } finally {
    fake.child.kill('SIGTERM');
    await new Promise((r) => (fake.child.exitCode !== null ? r(null) : fake.child.once('exit', r)));
  }
  if (profileDir) {
    const file = newestCpuProfile(profileDir);
    if (!file) problems.push('no CPU profile written by the fake S3');
    else {
      const p = loadProfile(file);
      for (const s of done) {
        s.profile = {
          file: relative(REPO_ROOT, file),
          phases: bench.windows
            .filter((w) => w.scenario === s.name)
            .map((w) => ({ phase: w.phase, summary: summarizeProfile(p, w.fromUs, w.toUs) })),
        };
        if (!s.profile.phases.some((ph) => ph.summary.sampledMs > 0))
          problems.push(`${s.name}: profile windows hold no samples`);
        record(bench, { selftest: 'fake S3, not the gateway' }, s, date);
      }
    }
  }
  log(`selftest results: ${relative(REPO_ROOT, join(out, `${date}-gateway.md`))}`);
  if (problems.length) {
    for (const p of problems) log(`selftest problem: ${p}`);
    return 1;
  }
  log('selftest: ok');
  return 0;
}
