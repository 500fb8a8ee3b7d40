import { spawnSync } from 'child_process';
import { cpus, release, totalmem } from 'os';
import { readText, REPO_ROOT } from './gateway';
import { formatBytes } from './units';

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  memory: string;
  os: string;
  node: string;
  java: string;
  cassandra?: string;
  kafka?: string;
}

function run(cmd: string, args: string[], cwd = REPO_ROOT): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return r.error ? '' : `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
}

export function machineInfo(javaBin = 'java'): MachineInfo {
  const cpuinfo = readText('/proc/cpuinfo');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
  const osRelease = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readText('/etc/os-release'))?.[1] ?? 'Linux';
  const nproc = Number(run('nproc', [])) || cpus().length;
  const java = run(javaBin, ['-version']).split('\n')[0] || 'not found';
  return {
    nproc,
    cpuModel: model,
    memory: formatBytes(totalmem()),
    os: `${osRelease}, kernel ${release()}`,
    node: process.version,
    java,
  };
}

/** `HEAD` commit, with a note when the work tree has uncommitted changes (others work concurrently). */
export function gitCommit(): { commit: string; subject: string; dirty: number } {
  const commit = run('git', ['rev-parse', '--short=12', 'HEAD']) || 'unknown';
  const subject = run('git', ['log', '-1', '--format=%s']);
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']).split('\n').filter(Boolean).length;
  return { commit, subject, dirty };
}
