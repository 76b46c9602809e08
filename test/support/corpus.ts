/** Bulk-loads documents in the stored shape (as PublishService stores them), fast, for paging tests. */
import type { RunningNode } from '../../src/runtime.js';
import { nodeTimestamp } from '../../src/domain/timestamps.js';
import { nsdlDocs, type Doc } from './documents.js';

/** `count` live documents with distinct, increasing node_timestamps from `start`; ids `${prefix}-00001`… */
export async function loadStoredCorpus(node: RunningNode, count: number, options: { prefix?: string; start?: Date; extra?: (i: number) => Doc } = {}): Promise<Doc[]> {
  const templates = nsdlDocs(100);
  const start = (options.start ?? new Date('2020-01-01T00:00:00Z')).getTime();
  const docs: Doc[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = `${options.prefix ?? 'doc'}-${String(i).padStart(5, '0')}`;
    const stamp = nodeTimestamp(new Date(start + i * 1000));
    docs.push({
      ...templates[i % templates.length], _id: id, doc_ID: id, resource_locator: `http://example.org/r/${i % 400}`,
      publish_node: 'test', publishing_node: 'test', create_timestamp: stamp, update_timestamp: stamp, node_timestamp: stamp,
      ...(options.extra ? options.extra(i) : {}),
    });
  }
  const db = node.couch.use(node.names.resourceData);
  for (let i = 0; i < docs.length; i += 500) await db.bulk({ docs: docs.slice(i, i + 500) });
  return docs;
}
