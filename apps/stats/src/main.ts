import 'reflect-metadata';
import { QueueTransport } from '@ostore/queue/data-access';
import { exitOnConfigError } from '@ostore/shared/config';
import { fatal, runApp } from '@ostore/shared/runtime';
import { AppModule } from './app.module';
import { loadStatsConfig } from './config/stats.config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadStatsConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  await runApp({
    config,
    module: (deps) => AppModule.register(config, deps),
    // a hybrid app: the management endpoints over HTTP, the usage topic over the queue transport
    transports: (app) => [app.get(QueueTransport)],
  });
}

main().catch(fatal('stats'));
