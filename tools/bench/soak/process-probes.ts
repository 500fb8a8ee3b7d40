/**
 * What the soak samples from the gateway process and the machine: socket descriptors of a pid,
 * ESTABLISHED TCP connections on a local port (/proc/net/tcp, tcp6), and a gauge from
 * Prometheus text (the event-loop lag that prom-client's default metrics export).
 */
import { readdirSync, readFileSync, readlinkSync } from 'fs';

/** Entries of /proc/<pid>/fd that are sockets (`socket:[inode]`); undefined once the process is gone. */
export function countSocketFds(pid: number): number | undefined {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  let n = 0;
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // closed between readdir and readlink
    }
  }
  return n;
}

const TCP_ESTABLISHED = '01';

/** ESTABLISHED rows of a /proc/net/tcp(6) table whose local port is `port` (the server's side). */
export function countEstablished(table: string, port: number): number {
  let n = 0;
  for (const line of table.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    const localPort = parseInt(f[1].slice(f[1].lastIndexOf(':') + 1), 16);
    if (localPort === port && f[3] === TCP_ESTABLISHED) n++;
  }
  return n;
}

/** ESTABLISHED TCP connections (IPv4 and IPv6) accepted on local port `port`. */
export function establishedOnPort(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    try {
      n += countEstablished(readFileSync(file, 'utf8'), port);
    } catch {
      // no IPv6 table on this machine
    }
  }
  return n;
}

/**
 * The value of a gauge in Prometheus text exposition (the first series of that name, whatever its
 * labels, or the first with the `label` pair, e.g. `space="new"`); NaN when absent.
 */
export function promGauge(text: string, name: string, label?: string): number {
  const labels = label === undefined ? '(?:\\{[^}]*\\})?' : `\\{[^}]*\\b${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^}]*\\}`;
  const re = new RegExp(`^${name}${labels}\\s+(\\S+)`, 'm');
  const m = re.exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Sample lines (series) of a Prometheus text exposition: every line that is not a comment or blank. */
export function countSeries(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line && !line.startsWith('#')) n++;
  return n;
}

/** The parts of a process's resident memory the soak follows beside VmRSS, bytes. */
export interface ResidentParts {
  /** RssAnon of /proc/<pid>/status: anonymous memory (the V8 heaps, malloc arenas, buffers). */
  anon: number;
  /** RssFile: mapped files (the node binary, shared libraries). */
  file: number;
  /** Resident bytes of the `[heap]` mapping: the main thread's malloc arena (brk), native allocations outside V8. */
  brk: number;
}

/** `RssAnon`/`RssFile` of a /proc/<pid>/status text and the `[heap]` Rss of its smaps text. */
export function parseResidentParts(status: string, smaps: string): ResidentParts {
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)\\s*kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  let brk = 0;
  let inBrk = false;
  for (const line of smaps.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inBrk = line.trimEnd().endsWith('[heap]');
    else if (inBrk && line.startsWith('Rss:')) brk += Number(/(\d+)/.exec(line)![1]) * 1024;
  }
  return { anon: kb('RssAnon'), file: kb('RssFile'), brk };
}

/** The resident parts of process `pid`; undefined once it is gone. */
export function residentParts(pid: number): ResidentParts | undefined {
  try {
    return parseResidentParts(readFileSync(`/proc/${pid}/status`, 'utf8'), readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  } catch {
    return undefined;
  }
}
