import 'reflect-metadata';
import { QueueTransport } from '@ostore/queue/data-access';
import { exitOnConfigError } from '@ostore/shared/config';
import { fatal, runApp } from '@ostore/shared/runtime';
import { AppModule } from './app.module';
import { loadSchedulerConfig } from './config/scheduler.config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadSchedulerConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  await runApp({
    config,
    module: (deps) => AppModule.register(config, deps),
    // a hybrid app: the management endpoints over HTTP, the candidate queues over the queue transport
    transports: (app) => [app.get(QueueTransport)],
  });
}

main().catch(fatal('scheduler'));
