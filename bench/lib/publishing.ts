/** Publishing a generated corpus through the node's /publish, as a publisher's client does. */
import { createAccount, basicAuthHeader, secondsSince, benchOptions, prepareStore, type BenchStore, type NodeProcess } from '../support.js';
import { generateDocument, loadTemplates } from '../generate.js';

/** A run that publishes through the node: its store, and its size from --docs/--page or <ENV>_DOCS/<ENV>_PAGE (100,000 and 100). */
export async function publishingRun(env: string): Promise<{ store: BenchStore | undefined; total: number; page: number }> {
  const options = benchOptions({ docs: 100000, docsEnv: `${env}_DOCS`, page: 100, pageEnv: `${env}_PAGE` });
  return { store: await prepareStore(options.couchdb), total: options.docs, page: options.page };
}

/** The access services' settings a benchmark's node runs with: pages of `page` entries, resumption tokens on. */
export function accessServices(page: number): Record<string, unknown> {
  return {
    obtain: { service_data: { flow_control: true, doc_limit: page, id_limit: page } },
    slice: { service_data: { flow_control: true, doc_limit: page, id_limit: page } },
    harvest: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: page } },
    oai_pmh: { service_data: { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: page } },
  };
}

/** Where the first page of each access service is asked for, as a harvester or a portal asks for it. */
export function firstPages(schema: string): [string, string][] {
  return [
    ['obtain', '/obtain'],
    ['slice', '/slice?any_tags=topic-7'],
    ['JSON harvest', '/harvest/listrecords'],
    ['OAI-PMH ListRecords', `/OAI-PMH?verb=ListRecords&metadataPrefix=${encodeURIComponent(schema)}`],
  ];
}

/** The lower-cased payload schema of the generated corpus (the bench templates are NSDL DC). */
export function corpusSchema(templates = loadTemplates()): string {
  return String((templates[0]?.payload_schema as string[] | undefined)?.[0] ?? 'nsdl_dc').toLowerCase();
}

/**
 * Publishes `total` generated documents in batches of `batch` under a new publisher account;
 * `afterBatch` hears how many are stored so far. Returns the seconds it took.
 */
export async function publishCorpus(node: NodeProcess, total: number, batch: number, afterBatch: (stored: number) => void = () => {}): Promise<number> {
  const templates = loadTemplates();
  const { user, password } = await createAccount(node, 'bench', 'publisher');
  const auth = basicAuthHeader(user, password);
  const started = process.hrtime.bigint();
  for (let i = 0; i < total; i += batch) {
    const documents = Array.from({ length: Math.min(batch, total - i) }, (_, j) => generateDocument(i + j, templates, true));
    const response = await fetch(`${node.url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ documents }) });
    const body = await response.json() as { OK: boolean; error?: string };
    if (!body.OK) throw new Error(`publish failed: ${JSON.stringify(body).slice(0, 300)}`);
    afterBatch(i + documents.length);
  }
  return secondsSince(started);
}
