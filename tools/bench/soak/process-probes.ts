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
 * labels); NaN when absent.
 */
export function promGauge(text: string, name: string): number {
  const re = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm');
  const m = re.exec(text);
  return m ? Number(m[1]) : NaN;
}
