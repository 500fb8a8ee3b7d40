import { spawn } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import { waitFor } from './stack-env';

/** Runs `script` in a fresh node with the watchdog armed at 300 ms; resolves with its exit and stderr. */
function runWithWatchdog(script: string): Promise<{ code: number | null; stderr: string; ms: number }> {
  const watchdog = JSON.stringify(join(__dirname, 'exit-watchdog.js'));
  const t0 = Date.now();
  const child = spawn(process.execPath, ['-e', `require(${watchdog}).armExitWatchdog(300); ${script}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((done) => child.once('exit', (code) => done({ code, stderr, ms: Date.now() - t0 })));
}

describe('the exit watchdog', () => {
  it('forces the exit of a process that something keeps alive, naming what', async () => {
    const r = await runWithWatchdog(`require('net').createServer().listen(0, '127.0.0.1'); process.exitCode = 3;`);
    expect(r.stderr).toContain('FORCED EXIT');
    expect(r.stderr).toMatch(/server listening on \{"address":"127\.0\.0\.1"/);
    expect(r.code).toBe(3);
  });

  it('kills the child processes left running when it forces the exit', async () => {
    const r = await runWithWatchdog(`const c = require('child_process').spawn('sleep', ['30']); console.error('child=' + c.pid);`);
    expect(r.stderr).toMatch(/child process pid \d+: sleep 30/);
    const pid = Number(/child=(\d+)/.exec(r.stderr)![1]);
    // killed with SIGKILL before the exit: gone, or a zombie waiting for whoever adopted it to reap it
    const state = () => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      } catch {
        return 'gone';
      }
    };
    await waitFor('the child killed', async () => (['gone', 'Z', 'X'].includes(state()) ? true : undefined), 5000, 20);
  });

  it('stays silent when the process exits by itself', async () => {
    const r = await runWithWatchdog(`setTimeout(() => {}, 10);`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(5000);
  });
});
