/** Resource data queries the node endpoints need (the access services own their own views). */
import type { DocumentScope } from 'nano';
import type { Couch } from './couch.js';
import { inStore } from './couch.js';
import type { DatabaseNames } from './databases.js';
import { getOrUndefined, type StoredDoc } from './documents.js';
import { bulkWrite, getMany, type WriteResult } from './resource-writes.js';

export class ResourceRepository {
  private readonly db: DocumentScope<unknown>;

  constructor(couch: Couch, names: DatabaseNames) {
    this.db = couch.use(names.resourceData);
  }

  getMany(ids: string[]): Promise<Map<string, StoredDoc>> {
    return getMany(this.db, ids);
  }

  bulkWrite(docs: StoredDoc[]): Promise<WriteResult[]> {
    return bulkWrite(this.db, docs);
  }

  /** A `_local` marker of this database (never replicated), e.g. "the sample data was loaded". */
  async hasMarker(name: string): Promise<boolean> {
    return (await getOrUndefined(this.db, `_local/${name}`)) !== undefined;
  }

  async setMarker(name: string, value: Record<string, unknown>): Promise<void> {
    await inStore(`write marker ${name}`, () => this.db.insert({ _id: `_local/${name}`, ...value } as never));
  }

  /**
   * Live document count and earliest node_timestamp in one map-only view read: `total_rows` of a
   * map-only view needs no reduce (reduces cost time per row on the embedded store).
   */
  async liveSummary(): Promise<{ count: number; earliest: string | undefined }> {
    const result = await inStore('read live documents', () =>
      this.db.view<null>('node-status', 'live_by_node_timestamp', { limit: 1 }));
    const first = result.rows[0];
    return { count: result.total_rows, earliest: first ? String(first.key) : undefined };
  }
}
