/** Where the scenarios run: a gateway this run starts (on the local stack), or one already running. */
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import { rmSync } from 'fs';
import { join, relative } from 'path';
import { CassandraStats } from '../lib/cassandra-stats';
import { dropKeyspace, GatewayProcess, newestCpuProfile, REPO_ROOT } from '../lib/gateway';
import { localStack } from '../lib/stack';
import { Bench, log, Target, WORK_DIR } from './bench';

const stack = localStack();

/** Undoes what the current run started (set once the gateway is being started). */
let activeTeardown: (() => Promise<void>) | undefined;

/** Stops what the current run started, if anything (the watchdog and the signal handlers call it). */
export async function teardownActive(): Promise<void> {
  await activeTeardown?.();
}

export interface Environment {
  target: Target;
  tools: Record<string, string>;
  /** Stops what this run started, best effort; idempotent. */
  teardown: () => Promise<void>;
  gateway?: GatewayProcess;
  profileFile: () => string | undefined;
}

async function stackPids(): Promise<{ cassandra?: number; kafka?: number; cassandraRelease?: string }> {
  try {
    const st = await stack.status({ probe: true });
    const node1 = st.cassandra?.nodes?.[0];
    return {
      cassandra: node1?.pid ?? undefined,
      kafka: st.kafka?.pid ?? undefined,
      cassandraRelease: node1?.release
        ? `${node1.release}${node1.memtables ? `, ${node1.memtables} memtable settings` : ''}`
        : undefined,
    };
  } catch {
    return {};
  }
}

/** Starts (or, with --endpoint, finds) the gateway the scenarios run against. */
export async function startEnvironment(bench: Bench): Promise<Environment> {
  const a = bench.args;
  if (a.endpoint) {
    const pids = await stackPids();
    return {
      target: {
        endpoint: a.endpoint,
        host: a.endpoint.replace(/^http:\/\//, ''),
        accessKey: a.accessKey!,
        secretKey: a.secretKey!,
        gatewayPid: a.gatewayPid,
        pids: {
          gateway: a.gatewayPid,
          cassandra: pids.cassandra,
          kafka: pids.kafka,
          'client+children': process.pid,
        },
        label: `gateway at ${a.endpoint} (not started by the bench)`,
      },
      tools: {
        gateway: `running at ${a.endpoint}`,
        ...(pids.cassandraRelease ? { cassandra: pids.cassandraRelease } : {}),
      },
      teardown: async () => undefined,
      profileFile: () => undefined,
    };
  }

  log('stack: ensureStackUp()');
  const info = await stack.ensureStackUp({ log: (m: string) => log(`stack: ${m}`) });
  const pids = await stackPids();
  const keyspace = a.keyspace ?? `bench_${bench.runStamp}`;
  const blockDir = join(WORK_DIR, bench.runStamp, 'blocks');
  const profileDir = a.profile ? join(WORK_DIR, bench.runStamp, 'cpuprofile') : undefined;
  const credentials = {
    user: 'bench',
    accessKeyId: `BENCH${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const gateway = new GatewayProcess({
    keyspace,
    cluster: 'bench',
    cassandraHost: info.cassandra.host,
    cassandraPort: info.cassandra.port,
    kafkaBrokers: info.kafka.brokers,
    credentials,
    blockStore: a.blockStore,
    blockDir,
    logFile: join(WORK_DIR, bench.runStamp, 'gateway.log'),
    cpuProfileDir: profileDir,
    runtime: a.runtime,
    extraEnv: a.gatewayEnv,
  });
  const cassandraStats = new CassandraStats(info.cassandra.clientOptions, keyspace);
  let torn = false;
  const teardown = async () => {
    if (torn) return;
    torn = true;
    await cassandraStats.close();
    log('stopping the gateway');
    await gateway.stop().catch((e) => log(`gateway stop: ${(e as Error).message}`));
    if (!a.keep) {
      log(`dropping keyspace ${keyspace}, removing ${relative(REPO_ROOT, blockDir)}`);
      await dropKeyspace(info.cassandra.clientOptions, keyspace).catch((e) =>
        log(`drop keyspace: ${(e as Error).message}`),
      );
      rmSync(blockDir, { recursive: true, force: true });
      rmSync(`${blockDir}-cold`, { recursive: true, force: true });
    } else {
      log(`kept keyspace ${keyspace} and ${blockDir}`);
    }
    if (info.startedByUs) {
      log('stack: it was not running before the bench, so stackDown()');
      await stack.stackDown({}).catch((e: Error) => log(`stack down: ${e.message}`));
    }
  };
  activeTeardown = teardown;
  log(
    `gateway: starting (keyspace ${keyspace}, block store ${a.blockStore}${a.profile ? ', --cpu-prof' : ''})`,
  );
  try {
    if (a.runtime === 'dist') buildDist();
    await gateway.start();
  } catch (e) {
    await teardown();
    throw e;
  }
  log(`gateway: ready at ${gateway.endpoint} (pid ${gateway.pid})`);
  return {
    target: {
      endpoint: gateway.endpoint,
      host: gateway.host,
      accessKey: credentials.accessKeyId,
      secretKey: credentials.secretAccessKey,
      gatewayPid: gateway.pid,
      pids: {
        gateway: gateway.pid,
        cassandra: pids.cassandra,
        kafka: pids.kafka,
        'client+children': process.pid,
      },
      label: `gateway started by the bench (keyspace ${keyspace}, BLOCK_STORE=${a.blockStore}, LOG_LEVEL=warn${envText(a.gatewayEnv)})`,
      cassandra: cassandraStats,
      metrics: () => gateway.metrics(),
    },
    tools: {
      gateway: `apps/gateway via ${a.runtime === 'dist' ? 'node dist/apps/gateway/src/main.js (npm run build)' : 'node -r @swc-node/register'}, BLOCK_STORE=${a.blockStore}, LOG_LEVEL=warn${envText(a.gatewayEnv)}, keyspace ${keyspace}`,
      ...(pids.cassandraRelease ? { cassandra: `${pids.cassandraRelease} (local stack, same machine)` } : {}),
    },
    teardown,
    gateway,
    profileFile: () => (profileDir ? newestCpuProfile(profileDir) : undefined),
  };
}

/** `npm run build`: the gateway then runs from dist/ as it does in production images. */
function buildDist(): void {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'build', 'build.mjs')], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`npm run build failed (${r.status}): ${r.stderr || r.stdout}`);
  log(r.stdout.trim());
}

function envText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `, ${k}=${v}`)
    .join('');
}
