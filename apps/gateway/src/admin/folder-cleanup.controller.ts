import { BadRequestException, Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { CleanupPassStat, FolderFilterRepository } from '@ostore/metastore/data-access';
import { AdminTokenGuard } from './admin.controller';

/** One scanner's part of a generation: its filter build and its folder scan. */
export interface FolderCleanupHostStatus {
  source: string;
  built: boolean;
  keys: number;
  builtAt?: string;
  /** What its folder scan did; absent until it judged (or skipped) the generation. */
  pass?: CleanupPassStat & { finishedAt: string };
}

/** One generation of the empty-directory cleanup, as `GET /admin/folders/status` answers it. */
export interface FolderCleanupGenerationStatus {
  generation: number;
  openedAt: string;
  capacity: number;
  fpr: number;
  bits: number;
  hashes: number;
  hosts: FolderCleanupHostStatus[];
}

/** The answer of `GET /admin/folders/status`: the newest generations, newest first. */
export interface FolderCleanupStatus {
  generations: FolderCleanupGenerationStatus[];
}

/** The token that provides the FolderFilterRepository to the admin API. */
export const FOLDER_FILTER_REPOSITORY = Symbol('FOLDER_FILTER_REPOSITORY');

/**
 * The operator's view of the empty-directory cleanup (`npm run admin -- folders status`): per
 * generation, every scanner's build and what its folder scan checked, found empty and published,
 * per folder table (queue), or why it skipped. What the schedulers then deleted or skipped as no
 * longer empty is in their metrics (the Grafana row "Empty-directory cleanup").
 */
@Controller('admin/folders')
@UseGuards(AdminTokenGuard)
export class FolderCleanupController {
  constructor(@Inject(FOLDER_FILTER_REPOSITORY) private readonly repo: FolderFilterRepository) {}

  @Get('status')
  async status(@Query('generations') generations = '3'): Promise<FolderCleanupStatus> {
    const n = Number(generations);
    if (!Number.isInteger(n) || n < 1 || n > 100) throw new BadRequestException('generations must be an integer from 1 to 100');
    const out: FolderCleanupGenerationStatus[] = [];
    for (const g of await this.repo.recentGenerations(n)) {
      const [hosts, passes] = await Promise.all([this.repo.hosts(g.generation), this.repo.passes(g.generation)]);
      const sources = [...new Set([...hosts.map((h) => h.source), ...passes.map((p) => p.source)])].sort();
      out.push({
        generation: g.generation,
        openedAt: g.createdAt.toISOString(),
        capacity: g.capacity,
        fpr: g.fpr,
        bits: g.shape.bits,
        hashes: g.shape.hashes,
        hosts: sources.map((source) => {
          const h = hosts.find((x) => x.source === source);
          const p = passes.find((x) => x.source === source);
          return {
            source,
            built: h?.complete ?? false,
            keys: h?.keys ?? 0,
            builtAt: h?.completedAt?.toISOString(),
            pass: p ? { ...p.stat, finishedAt: p.finishedAt.toISOString() } : undefined,
          };
        }),
      });
    }
    return { generations: out };
  }
}
