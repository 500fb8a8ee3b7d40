import 'reflect-metadata';
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
  await runApp({ config, module: (deps) => AppModule.register(config, deps) });
}

main().catch(fatal('stats'));
