import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, type Db } from '@checkout/mongo';
import type { ReportFiles } from '../domain/report-ports';
import { REPORT_FILES_BUCKET } from './indexes';

/** Our file ids are strings (`<reportId>.<run>`): GridFS takes any _id, though its types name ObjectId. */
const gridId = (id: string) => id as unknown as Parameters<GridFSBucket['delete']>[0];

/**
 * D52's report files in GridFS (the driver's bucket; its chunks in orders' database): a file is written as its CSV is
 * made, a chunk at a time, and read back the same way, so neither the runner nor a download holds a file whole.
 */
export class ReportFilesStore implements ReportFiles {
  private readonly bucket: GridFSBucket;

  constructor(db: Db) {
    this.bucket = new GridFSBucket(db, { bucketName: REPORT_FILES_BUCKET });
  }

  async write(fileId: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
    const upload = this.bucket.openUploadStreamWithId(gridId(fileId), `${fileId}.csv`);
    await pipeline(Readable.from(chunks, { objectMode: false }), upload);
  }

  read(fileId: string): Readable {
    return this.bucket.openDownloadStream(gridId(fileId));
  }

  async delete(fileIds: readonly string[]): Promise<void> {
    for (const id of fileIds) {
      // The driver deletes the chunks whether or not the file's document exists, then says so: a crashed run's
      // chunks (its file document is written last) go too.
      await this.bucket.delete(gridId(id)).catch((err: unknown) => {
        if (!(err instanceof Error && /File not found/i.test(err.message))) throw err;
      });
    }
  }
}
