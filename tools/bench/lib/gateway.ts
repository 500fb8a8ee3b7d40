import { ChildProcess, spawn } from 'child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'fs';
import { join, resolve } from 'path';
import { freePort } from '@ostore/testing';

export const REPO_ROOT = resolve(__dirname, '../../..');

export interface GatewayOptions {
  keyspace: string;
  cluster: string;
  cassandraHost: string;
  cassandraPort: number;
  kafkaBrokers: string[];
  credentials: { user: string; accessKeyId: string; secretAccessKey: string };
  blockStore: 'fs' | 'cassandra';
  blockDir: string;
  logFile: string;
  /** Write a V8 CPU profile (node --cpu-prof) into this folder when the gateway exits. */
  cpuProfileDir?: string;
  /** dist: `node dist/apps/gateway/src/main.js` (compiled by tools/build); register: the TypeScript source. */
  runtime?: 'dist' | 'register';
  extraEnv?: Record<string, string>;
  /** The checkout whose gateway runs (its own `npm run build` output); default this repo. An A/B of two builds in one run. */
  root?: string;
}

/** One gateway process started the way `npm start` starts it (node + swc register on main.ts). */
export class GatewayProcess {
  s3Port = 0;
  managementPort = 0;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private tailText = '';

  constructor(readonly options: GatewayOptions) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.s3Port}`;
  }

  get host(): string {
    return `127.0.0.1:${this.s3Port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last few KiB the process printed (for error messages). */
  get tail(): string {
    return this.tailText;
  }

  async start(readyTimeoutMs = 300_000): Promise<void> {
    const o = this.options;
    this.s3Port = await freePort();
    this.managementPort = await freePort();
    mkdirSync(o.blockDir, { recursive: true });
    mkdirSync(join(o.logFile, '..'), { recursive: true });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SWC_NODE_PROJECT: join(o.root ?? REPO_ROOT, 'tsconfig.base.json'),
      S3_HOST: '127.0.0.1',
      S3_PORT: String(this.s3Port),
      MANAGEMENT_HOST: '127.0.0.1',
      MANAGEMENT_PORT: String(this.managementPort),
      OSTORE_CLUSTER: o.cluster,
      CASSANDRA_CONTACT_POINTS: o.cassandraHost,
      CASSANDRA_PORT: String(o.cassandraPort),
      CASSANDRA_KEYSPACE: o.keyspace,
      KAFKA_BROKERS: o.kafkaBrokers.join(','),
      S3_BOOTSTRAP_USER: o.credentials.user,
      S3_BOOTSTRAP_ACCESS_KEY_ID: o.credentials.accessKeyId,
      S3_BOOTSTRAP_SECRET_ACCESS_KEY: o.credentials.secretAccessKey,
      BLOCK_STORE: o.blockStore,
      BLOCK_STORE_DIR: o.blockDir,
      BLOCK_COLD_DIR: `${o.blockDir}-cold`,
      LOG_LEVEL: 'warn',
      ...o.extraEnv,
    };
    const dist = o.runtime !== 'register';
    const nodeArgs = dist ? [] : ['-r', '@swc-node/register'];
    if (o.cpuProfileDir) {
      mkdirSync(o.cpuProfileDir, { recursive: true });
      nodeArgs.push('--cpu-prof', '--cpu-prof-dir', o.cpuProfileDir);
    }
    const log = createWriteStream(o.logFile, { flags: 'a' });
    const child = spawn(process.execPath, [...nodeArgs, dist ? 'dist/apps/gateway/src/main.js' : 'apps/gateway/src/main.ts'], { cwd: o.root ?? REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (d: Buffer) => {
      log.write(d);
      this.tailText = (this.tailText + d.toString('utf8')).slice(-6000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.exited = new Promise((res) => child.once('exit', () => res()));
    void this.exited.then(() => log.end());

    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`gateway exited during start (code ${child.exitCode ?? child.signalCode}):\n${this.tail}`);
      try {
        const res = await fetch(`http://127.0.0.1:${this.managementPort}/health/ready`, { signal: AbortSignal.timeout(2000) });
        await res.text();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`gateway not ready within ${readyTimeoutMs} ms:\n${this.tail}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** SIGTERM (graceful: the CPU profile is written on exit), SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 40_000): Promise<void> {
    if (!this.child || !this.running) return;
    this.child.kill('SIGTERM');
    const done = await Promise.race([this.exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs))]);
    if (!done) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** The gateway's Prometheus metrics text (empty when unreachable). */
  async metrics(): Promise<string> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.managementPort}/metrics`, { signal: AbortSignal.timeout(5000) });
      return await res.text();
    } catch {
      return '';
    }
  }
}

/**
 * The newest main-thread `.cpuprofile` in a folder (the event loop's: Node names them
 * CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile, thread 0 being the main one). Worker
 * threads (the MD5 offload) write their own, later-started profiles; the newest of any thread is
 * the fallback when no name carries a thread id.
 */
export function newestCpuProfile(dir: string): string | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  } catch {
    return undefined;
  }
  const main = files.filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  return (main.length > 0 ? main : files).sort().map((f) => join(dir, f)).pop();
}

/** Drops a keyspace (best effort) through cassandra-driver with the stack's client options. */
export async function dropKeyspace(clientOptions: Record<string, unknown>, keyspace: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cassandra = require('cassandra-driver');
  const client = new cassandra.Client({ ...clientOptions, keyspace: undefined });
  try {
    await client.connect();
    await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`, [], { readTimeout: 120_000 });
  } finally {
    await client.shutdown();
  }
}

export function readText(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}
