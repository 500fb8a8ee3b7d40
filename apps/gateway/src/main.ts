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
  await runApp({
    config,
    module: (deps) => {
      // a worker of runClusterPrimary: its metrics are summed by the primary's /metrics
      if (cluster.isWorker) AggregatorRegistry.setRegistries([deps.metrics.registry]);
      return AppModule.register(config, deps);
    },
  });
}

main().catch(fatal('gateway'));
