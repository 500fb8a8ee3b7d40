import { ChildProcess, spawn, spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import { createWriteStream, existsSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'fs';
import { join } from 'path';
import { freePort } from '@ostore/testing';
import { cacheDir } from '../lib/warp';

/**
 * MinIO (https://github.com/minio/minio, AGPL-3.0) as the peer the gateway is compared with: built
 * from the Go module proxy into the same cache as warp (`~/.cache/ostore/bin/minio`,
 * `$MINIO_BIN` overrides), never vendored, committed or linked; it only ever runs as a separate
 * process on 127.0.0.1 with its data under tools/bench/.work.
 *
 * Pinned to the module proxy's `@latest` of 2026-12-01 (MinIO publishes no semver tags, only
 * RELEASE.* tags, so the proxy knows it by this pseudo-version). The first build takes ~10 minutes
 * on 2 cores.
 */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const MINIO_MODULE = 'github.com/minio/minio';

/** Where build-minio puts the binary. */
export function defaultMinioPath(): string {
  return join(cacheDir(), 'bin', 'minio');
}

/** The MinIO binary to use ($MINIO_BIN, else the cache), or undefined. */
export function findMinio(): string | undefined {
  return [process.env.MINIO_BIN, defaultMinioPath()].find((p): p is string => !!p && existsSync(p));
}

/** `go install github.com/minio/minio@<pinned>` into the cache; returns the binary's path. */
export function buildMinio(log: (msg: string) => void): string {
  const go = process.env.GO ?? 'go';
  const bin = join(cacheDir(), 'bin');
  mkdirSync(bin, { recursive: true });
  const args = ['install', '-trimpath', `${MINIO_MODULE}@${MINIO_VERSION}`];
  log(`$ ${go} ${args.join(' ')}   (GOBIN=${bin})`);
  const r = spawnSync(go, args, { cwd: cacheDir(), encoding: 'utf8', env: { ...process.env, GOBIN: bin }, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  if (r.status !== 0 || !existsSync(defaultMinioPath())) throw new Error(`go install minio failed:\n${r.stderr}`);
  writeFileSync(join(bin, 'minio.version'), `${MINIO_MODULE}@${MINIO_VERSION}\n`);
  return defaultMinioPath();
}

/** What the cache knows of the binary (its marker file), else `minio --version`. */
export function minioVersion(binPath: string): string {
  const marker = join(cacheDir(), 'bin', 'minio.version');
  if (binPath === defaultMinioPath() && existsSync(marker)) return readFileSync(marker, 'utf8').trim();
  const r = spawnSync(binPath, ['--version'], { encoding: 'utf8' });
  return (r.stdout || r.stderr).trim().split('\n')[0];
}

/** A single-node, single-drive MinIO server on 127.0.0.1 (the simplest setup a user would pick). */
export class MinioProcess {
  port = 0;
  readonly accessKey = `minio${randomBytes(6).toString('hex')}`;
  readonly secretKey = randomBytes(18).toString('base64url');
  private child?: ChildProcess;
  private exited?: Promise<void>;

  constructor(
    private readonly binPath: string,
    private readonly dataDir: string,
    private readonly logFile: string,
  ) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts it on fresh ports and waits (deadline `readyTimeoutMs`) until /minio/health/ready answers 200. */
  async start(readyTimeoutMs = 60_000): Promise<void> {
    this.port = await freePort();
    const consolePort = await freePort();
    mkdirSync(this.dataDir, { recursive: true });
    mkdirSync(join(this.logFile, '..'), { recursive: true });
    const log = createWriteStream(this.logFile, { flags: 'a' });
    const child = spawn(this.binPath, ['server', this.dataDir, '--address', this.host, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'], {
      env: { ...process.env, MINIO_ROOT_USER: this.accessKey, MINIO_ROOT_PASSWORD: this.secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.exited = new Promise((res) => child.once('exit', () => res()));
    const deadline = Date.now() + readyTimeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`minio exited during start (code ${child.exitCode}), see ${this.logFile}`);
      try {
        const res = await fetch(`${this.endpoint}/minio/health/ready`, { signal: AbortSignal.timeout(2000) });
        await res.text();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`minio not ready within ${readyTimeoutMs} ms, see ${this.logFile}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** SIGTERM, SIGKILL after 20 s; removes the data folder. */
  async stop(): Promise<void> {
    if (this.child && this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      const done = await Promise.race([this.exited!.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
      if (!done) {
        this.child.kill('SIGKILL');
        await this.exited;
      }
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
