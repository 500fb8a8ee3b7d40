import 'reflect-metadata';
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
  await runApp({ config, module: (deps) => AppModule.register(config, deps) });
}

main().catch(fatal('scheduler'));
