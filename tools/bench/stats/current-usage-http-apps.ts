import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'fs';
import { Agent, request } from 'http';
import { tmpdir } from 'os';
import { join } from 'path';
import { REPO_ROOT } from '../lib/gateway';
import { localStack } from '../lib/stack';

/** A build of the stats app: this checkout's `npm run build`, or one of a commit. */
export interface Build {
  label: string;
  /** A directory with dist/apps/stats/src/main.js and node_modules. */
  root: string;
  commit: string;
  /** `swc`: the TypeScript sources through @swc-node/register, as `npm start` and the specs run them. */
  runtime?: 'dist' | 'swc';
}

function build(root: string): void {
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(root, 'tools', 'build', 'build.mjs')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build in ${root} failed (${r.status}): ${r.stderr || r.stdout}`);
  process.stderr.write(`[bench] built ${root} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

const git = (...args: string[]) =>
  execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8' }).trim();

/** This checkout, compiled now (`npm run build`), as production runs it. */
export function currentBuild(): Build {
  build(REPO_ROOT);
  return { label: 'this checkout', root: REPO_ROOT, commit: currentCommit() };
}

/** This checkout's sources under the TypeScript loader, uncompiled (what earlier runs of this bench measured). */
export function swcBuild(): Build {
  return { label: 'this checkout under swc', root: REPO_ROOT, commit: currentCommit(), runtime: 'swc' };
}

function currentCommit(): string {
  const dirty = git('status', '--porcelain', '--', 'apps', 'libs') !== '';
  return `${git('rev-parse', '--short', 'HEAD')}${dirty ? '+changes' : ''}`;
}

/**
 * The stats app of commit `rev`: its apps/, libs/ and build script exported (git archive) into a
 * temporary directory, compiled by its own build script, sharing this checkout's node_modules.
 * Kept between runs (one directory per commit).
 */
export function commitBuild(rev: string): Build {
  const commit = git('rev-parse', '--verify', `${rev}^{commit}`);
  const root = join(tmpdir(), `ostore-usage-bench-${commit.slice(0, 12)}`);
  if (!existsSync(join(root, 'dist', '.built'))) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const tar = spawnSync(
      'sh',
      [
        '-c',
        `git -C "${REPO_ROOT}" archive ${commit} apps libs tools/build tsconfig.base.json package.json | tar -x -C "${root}"`,
      ],
      { encoding: 'utf8' },
    );
    if (tar.status !== 0) throw new Error(`git archive ${commit} failed: ${tar.stderr}`);
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
    build(root);
  }
  return { label: rev, root, commit: commit.slice(0, 7) };
}

/** One stats app process of a build: `node --enable-source-maps dist/apps/stats/src/main.js`, as the image runs it (or under swc). */
export class StatsProcess {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    readonly build: Build,
    readonly url: string,
    private readonly env: Record<string, string>,
    private readonly logFile: string,
  ) {}

  start(): this {
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const { SWC_NODE_PROJECT: _ignored, ...env } = process.env;
    const swc = this.build.runtime === 'swc';
    const args = swc
      ? ['-r', '@swc-node/register', 'apps/stats/src/main.ts']
      : ['--enable-source-maps', join(this.build.root, 'dist/apps/stats/src/main.js')];
    const loader = swc ? { SWC_NODE_PROJECT: join(this.build.root, 'tsconfig.base.json') } : {};
    this.child = spawn(process.execPath, args, {
      cwd: this.build.root,
      env: { ...env, ...loader, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.pipe(log);
    this.child.stderr!.pipe(log);
    this.exited = new Promise((r) => this.child!.once('exit', () => r()));
    return this;
  }

  get pid(): number {
    return this.child!.pid!;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** User + system CPU seconds the process has used (/proc/<pid>/stat, clock ticks of 10 ms). */
  cpuSeconds(): number {
    const fields = readFileSync(`/proc/${this.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.child!.kill('SIGTERM');
    const done = await Promise.race([
      this.exited!.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 20_000)),
    ]);
    if (!done) {
      this.child!.kill('SIGKILL');
      await this.exited;
    }
  }
}

/**
 * A lean HTTP client for the timed requests (node:http, one kept-alive socket per replica), so
 * that the client's own cost is small and the same in every mode and build.
 */
export class UsageClient {
  // with a timeout, node applies the server's Keep-Alive hint (less a second) to idle sockets:
  // a baseline's listener closes them after 5 s, while the other builds take their turns
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4, timeout: 60_000 });

  async get(
    url: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: string }> {
    try {
      return await this.once(url, path, headers);
    } catch (e) {
      // a kept-alive socket the replica closed meanwhile: nothing was answered on it, ask again
      if ((e as { stale?: boolean }).stale) return this.once(url, path, headers);
      throw e;
    }
  }

  private once(
    url: string,
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request(`${url}${path}`, { agent: this.agent, headers }, (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`${url}${path}: no answer in 10 s`)));
      req.on('error', (e: NodeJS.ErrnoException) =>
        reject(Object.assign(e, { stale: !answered && req.reusedSocket && e.code === 'ECONNRESET' })),
      );
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A replica's metrics, read once: the sum of a metric's samples (those carrying `label`, e.g. `path="memory"`). */
export async function scrape(
  client: UsageClient,
  url: string,
): Promise<(name: string, label?: string) => number> {
  const lines = (await client.get(url, '/metrics', {})).body.split('\n');
  return (name, label = '') =>
    lines
      .filter((l) => (l.startsWith(`${name} `) || l.startsWith(`${name}{`)) && l.includes(label))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** The bench's own Cassandra and Kafka: a stack dir and ports of its own, purged at the end. */
export interface OwnStack {
  cassandraPort: number;
  kafka: string;
  down: () => Promise<void>;
}

interface StackCalls {
  ensureStackUp(
    o: Record<string, unknown>,
  ): Promise<{ cassandra: { port: number }; kafka: { brokers: string[] } }>;
  stackDown(o: Record<string, unknown>): Promise<void>;
}

export async function ownStack(port: number): Promise<OwnStack> {
  const stack = localStack() as unknown as StackCalls;
  const options = {
    stackDir: join(REPO_ROOT, '.stack-usage-bench'),
    cassandraPort: port,
    cassandraStoragePort: port + 1,
    kafkaPort: port + 2,
    kafkaControllerPort: port + 3,
    cassandraHeap: '1G',
    exclusive: true,
    log: (m: string) => process.stderr.write(`[stack] ${m}\n`),
  };
  const info = await stack.ensureStackUp(options);
  return {
    cassandraPort: info.cassandra.port,
    kafka: info.kafka.brokers.join(','),
    down: () => stack.stackDown({ ...options, purge: true }),
  };
}
