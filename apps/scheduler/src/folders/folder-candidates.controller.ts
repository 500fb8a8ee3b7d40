import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { FolderCandidate, QueueName } from '@ostore/queue/contracts';
import { BatchHandler, QueueBatch, QueueHandler } from '@ostore/queue/data-access';
import { CandidateBatchRunner } from '../lifecycle/candidate-batch.runner';
import { DeleteEmptyFolder } from './delete-empty-folder/delete-empty-folder.usecase';

/** The batch runner of the folder queues (its own instance: the lifecycle's is AppModule's). */
export const FOLDER_BATCH_RUNNER = Symbol('FOLDER_BATCH_RUNNER');

/**
 * The empty-directory cleanup's consumers: the three `*-folders` queues on the queue transport,
 * each candidate decided again and deleted by DeleteEmptyFolder (candidates of one directory in
 * offset order, distinct directories concurrently, as the lifecycle queues).
 */
@Controller()
export class FolderCandidatesController {
  private readonly handlers: Record<'object-folders' | 'version-folders' | 'upload-folders', BatchHandler>;

  constructor(@Inject(FOLDER_BATCH_RUNNER) runner: CandidateBatchRunner, @Inject(DeleteEmptyFolder) folders: DeleteEmptyFolder) {
    const handler = (queue: QueueName) =>
      runner.handler({
        queue,
        contract: FolderCandidate,
        keyOf: (c) => folders.keyOf(c),
        execute: async (c) => {
          await folders.execute(c);
        },
      });
    this.handlers = {
      'object-folders': handler('object-folders'),
      'version-folders': handler('version-folders'),
      'upload-folders': handler('upload-folders'),
    };
  }

  @QueueHandler('object-folders')
  objectFolders(@Payload() batch: QueueBatch): Promise<void> {
    return this.handlers['object-folders'](batch);
  }

  @QueueHandler('version-folders')
  versionFolders(@Payload() batch: QueueBatch): Promise<void> {
    return this.handlers['version-folders'](batch);
  }

  @QueueHandler('upload-folders')
  uploadFolders(@Payload() batch: QueueBatch): Promise<void> {
    return this.handlers['upload-folders'](batch);
  }
}
