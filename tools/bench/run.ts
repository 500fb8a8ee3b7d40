/**
 * The benches' one command line: `npm run bench -- <command>`. The gateway benchmark's scenarios
 * (small, large, memory: tools/bench/scenarios/) and its tooling commands, or a lifecycle bench
 * (`lifecycle-scan|lifecycle-apply|lifecycle-wide-directory [its options]`, tools/bench/lifecycle/,
 * the same `main(argv)` its launcher *.mjs runs). See tools/bench/README.md. All load goes to
 * 127.0.0.1, bounded in time.
 */
import { mkdirSync } from 'fs';
import { check, report, runScenarios } from './harness/commands';
import { Bench, log, WORK_DIR } from './harness/bench';
import { teardownActive } from './harness/environment';
import { selftest } from './harness/selftest';
import { BenchArgs, parseArgs, scenariosOf, USAGE } from './lib/args';
import { loadProfile, summarizeProfile } from './lib/profile';
import { buildWarp, liveChildren } from './lib/warp';

// node 20 is the project's floor; the SDK's advice to move to 22 is noise in bench output
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** The lifecycle benches: each runs its own stack setup and its own time bounds (no 60-minute watchdog). */
const LIFECYCLE_BENCHES: Record<string, () => Promise<{ main(argv: string[]): Promise<number> }>> = {
  'lifecycle-scan': () => import('./lifecycle/scan-run'),
  'lifecycle-apply': () => import('./lifecycle/apply-run'),
  'lifecycle-wide-directory': () => import('./lifecycle/wide-directory-run'),
  'count-requests': () => import('./peer/count-run'),
  'vs-minio': () => import('./peer/versus-run'),
  'cassandra-cpu': () => import('./peer/cassandra-cpu-run'),
  'sstable-format': () => import('./peer/sstable-format-run'),
  soak: () => import('./soak/soak-run'),
  'quota-micro': () => import('./quota/quota-micro-run'),
};

async function gatewayBench(argv: string[]): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const bench = new Bench(args, argv);
  mkdirSync(WORK_DIR, { recursive: true });
  switch (args.command) {
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case 'build-warp': {
      const bin = buildWarp(log);
      process.stdout.write(`${bin}\n`);
      return 0;
    }
    case 'profile-summary': {
      const s = summarizeProfile(loadProfile(args.file!));
      process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      return 0;
    }
    case 'check':
      return check(bench);
    case 'report':
      return report(bench, args.date);
    case 'selftest':
      return selftest(bench);
    default:
      return runScenarios(bench, scenariosOf(args.command));
  }
}

function lifecycleBench(name: string, argv: string[]): void {
  LIFECYCLE_BENCHES[name]()
    .then((bench) => bench.main(argv))
    .then(
      (code) => process.exit(code ?? 0),
      (e) => {
        process.stderr.write(`${(e as Error).stack ?? e}\n`);
        process.exit(1);
      },
    );
}

function runGatewayBench(argv: string[]): void {
  // Bounded in time whatever happens: a watchdog ends the run (and what it started) after 60 minutes.
  const WATCHDOG_MS = Number(process.env.OSTORE_BENCH_MAX_MS ?? 60 * 60_000);
  const watchdog = setTimeout(
    () => void shutdown('watchdog: the bench ran longer than its limit', 4),
    WATCHDOG_MS,
  );
  watchdog.unref();

  let shuttingDown = false;
  async function shutdown(why: string, code: number): Promise<void> {
    if (shuttingDown) return;
    shuttingDown = true;
    log(`${why}: stopping what this run started`);
    for (const c of liveChildren) c.kill('SIGKILL');
    await teardownActive().catch(() => undefined);
    process.exit(code);
  }
  process.once('SIGINT', () => void shutdown('interrupted', 130));
  process.once('SIGTERM', () => void shutdown('terminated', 143));

  gatewayBench(argv).then(
    (code) => {
      clearTimeout(watchdog);
      process.exit(code);
    },
    async (e) => {
      log(`failed: ${(e as Error).stack ?? e}`);
      await teardownActive().catch(() => undefined);
      process.exit(1);
    },
  );
}

const [first, ...rest] = process.argv.slice(2);
if (first && first in LIFECYCLE_BENCHES) lifecycleBench(first, rest);
else runGatewayBench(process.argv.slice(2));
