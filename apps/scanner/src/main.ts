import 'reflect-metadata';
import { exitOnConfigError } from '@ostore/shared/config';
import { fatal, runApp } from '@ostore/shared/runtime';
import { AppModule } from './app.module';
import { loadScannerConfig } from './config/scanner.config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadScannerConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  await runApp({ config, module: (deps) => AppModule.register(config, deps) });
}

main().catch(fatal('scanner'));
