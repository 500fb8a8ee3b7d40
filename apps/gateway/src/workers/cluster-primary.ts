import cluster, { Worker } from 'cluster';
import { createServer, IncomingMessage, request, ServerResponse } from 'http';
import { createServer as createNetServer } from 'net';
import { AggregatorRegistry } from 'prom-client';
import { JsonLogger } from '@ostore/shared/observability';
import { applyMigrations } from '@ostore/shared/runtime';
import type { GatewayConfig } from '../config/gateway.config';

/** A worker that dies this soon after its start is restarted only after a pause (no crash loop at full speed). */
const FAST_CRASH_MS = 5000;

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Forwards a management request (health, admin API) to the workers' shared management port. */
function proxy(req: IncomingMessage, res: ServerResponse, port: number): void {
  const upstream = request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.once('error', () => {
    if (!res.headersSent) res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('no gateway worker is ready\n');
  });
  req.pipe(upstream);
}

/**
 * GATEWAY_WORKERS > 1: this process is the node:cluster primary. It applies the migrations once,
 * then forks the workers, which each run the whole gateway and share the S3 listening socket (and
 * the admin port): the primary accepts connections and hands them round-robin to the workers
 * (node's default scheduling on Linux). The workers' management servers share one loopback port;
 * the primary serves the configured management port: `/metrics` is the sum over the workers
 * (prom-client's AggregatorRegistry over IPC), everything else (`/health/*`, the admin API) is
 * forwarded to a worker. Each worker has a number (GATEWAY_WORKER_INDEX, which names its own usage
 * spool directory); a worker that exits unexpectedly is replaced by one with its number;
 * SIGTERM/SIGINT go to every worker, and the primary exits once they have all stopped (their own graceful shutdown).
 */
export async function runClusterPrimary(config: GatewayConfig): Promise<void> {
  const logger = new JsonLogger(config.app, config.logLevel);
  const log = logger.forContext('GatewayWorkers');
  if (config.migrateOnStart) log.info('migrations checked', { ...(await applyMigrations(config, log)), keyspace: config.cassandra.keyspace });
  const workerManagementPort = await freeLoopbackPort();
  const workerEnv = { MIGRATE_ON_START: 'false', GATEWAY_WORKERS: '1', MANAGEMENT_HOST: '127.0.0.1', MANAGEMENT_PORT: String(workerManagementPort) };
  let stopping = false;
  const startedAt = new Map<Worker, number>();
  /** Each worker's number: a replacement keeps its predecessor's, and so its usage spool directory. */
  const numberOf = new Map<Worker, number>();
  const fork = (n: number) => {
    const worker = cluster.fork({ ...workerEnv, GATEWAY_WORKER_INDEX: String(n) });
    startedAt.set(worker, Date.now());
    numberOf.set(worker, n);
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    const n = numberOf.get(worker) ?? 0;
    startedAt.delete(worker);
    numberOf.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) {
        log.info('every worker stopped');
        logger.flush();
        process.exit(0);
      }
      return;
    }
    log.error('gateway worker exited; starting another', { pid: worker.process.pid, worker: n, code, signal, livedMs: lived });
    setTimeout(() => fork(n), lived < FAST_CRASH_MS ? FAST_CRASH_MS : 0);
  });
  for (let i = 0; i < config.workers; i++) fork(i);

  const aggregator = new AggregatorRegistry();
  const management = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      aggregator.clusterMetrics().then(
        (text) => res.writeHead(200, { 'content-type': aggregator.contentType }).end(text),
        (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
      );
      return;
    }
    proxy(req, res, workerManagementPort);
  });
  await new Promise<void>((resolve, reject) => {
    management.once('error', reject);
    management.listen(config.management.port, config.management.host, () => resolve());
  });
  log.info('gateway workers started', { workers: config.workers, management: config.management.port, s3: config.s3.port });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping the workers', { signal });
    management.close();
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    const force = setTimeout(() => {
      log.error('workers did not stop in time; exiting', { timeoutMs: config.shutdownTimeoutMs });
      logger.flush();
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    force.unref();
    if (startedAt.size === 0) process.exit(0);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
