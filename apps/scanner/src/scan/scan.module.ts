import { DynamicModule, Module } from '@nestjs/common';
import { ScannerConfig } from '../config/scanner.config';
import { FOLDER_CLEANUP_CONFIG, FolderCleanupService } from '../folders/folder-cleanup.service';
import { SCANNER_CONFIG, ScannerService } from './scanner.service';

/** The local scan: its loop over the configured tables (Cassandra, queue, clock, metrics come from global modules). */
@Module({})
export class ScanModule {
  static register(config: ScannerConfig): DynamicModule {
    return {
      module: ScanModule,
      providers: [
        { provide: SCANNER_CONFIG, useValue: config },
        ScannerService,
        ...(config.folders.enabled ? [{ provide: FOLDER_CLEANUP_CONFIG, useValue: config }, FolderCleanupService] : []),
      ],
    };
  }
}
