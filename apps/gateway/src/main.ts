import 'reflect-metadata';
import cluster from 'cluster';
import { AggregatorRegistry } from 'prom-client';
import { exitOnConfigError } from '@ostore/shared/config';
import { fatal, runApp } from '@ostore/shared/runtime';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config/gateway.config';
import { runClusterPrimary } from './workers/cluster-primary';

async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  if (config.workers > 1 && cluster.isPrimary) return runClusterPrimary(config);
  // a worker whose primary is gone (killed, crashed) stops gracefully instead of serving on alone
  if (cluster.isWorker) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  await runApp({
    config,
    module: (deps) => {
      // a worker of runClusterPrimary: its metrics are summed by the primary's /metrics (an
      // AggregatorRegistry built in a worker is what installs prom-client's answering listener)
      if (cluster.isWorker) {
        new AggregatorRegistry();
        AggregatorRegistry.setRegistries([deps.metrics.registry]);
      }
      return AppModule.register(config, deps);
    },
  });
}

main().catch(fatal('gateway'));
