import { ChildProcess, spawn } from 'child_process';
import { resolve } from 'path';

const root = resolve(__dirname, '../..');
export const APPS = ['gateway', 'scanner', 'scheduler', 'stats'] as const;
export type AppName = (typeof APPS)[number];

/** One app started the way `npm start` starts it: node + swc register on its main.ts. */
export class AppProcess {
  readonly output: string[] = [];
  private exited?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private child?: ChildProcess;

  constructor(
    readonly app: AppName,
    readonly env: Record<string, string>,
  ) {}

  start(): this {
    this.child = spawn(process.execPath, ['-r', '@swc-node/register', `apps/${this.app}/src/main.ts`], {
      cwd: root,
      env: { ...process.env, SWC_NODE_PROJECT: `${root}/tsconfig.base.json`, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d) => this.output.push(String(d)));
    this.child.stderr!.on('data', (d) => this.output.push(String(d)));
    this.exited = new Promise((res) => this.child!.once('exit', (code, signal) => res({ code, signal })));
    // the integration test environment stops whatever a spec file left running, even when it failed
    const registry = globalThis as { __ostoreProcesses?: unknown[] };
    (registry.__ostoreProcesses ??= []).push({
      name: this.app,
      pid: this.child.pid,
      running: () => this.child !== undefined && this.exitCode === undefined,
      stop: () => this.stop(),
    });
    return this;
  }

  /** The exit code once the process has exited (signal name if killed), else undefined. */
  get exitCode(): number | string | undefined {
    if (!this.child) return undefined;
    return this.child.exitCode ?? this.child.signalCode ?? undefined;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Resolves with the exit status, or rejects after `timeoutMs`. */
  waitForExit(timeoutMs = 30000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return Promise.race([
      this.exited!,
      new Promise<never>((_, reject) =>
        setTimeout(
          () =>
            reject(new Error(`${this.app} did not exit within ${timeoutMs} ms:\n${this.output.join('')}`)),
          timeoutMs,
        ).unref(),
      ),
    ]);
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    await this.waitForExit(30000).catch(() => this.child?.kill('SIGKILL'));
  }
}
