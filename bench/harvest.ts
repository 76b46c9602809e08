/**
 * bench/harvest: a full OAI-PMH ListRecords (oai_dc) and a full JSON listrecords harvest
 * following resumption tokens, each versus a raw CouchDB view read (keyset pages, include_docs)
 * of the same rows in the same run; page 1 versus page 1,000 latency of ListRecords; peak RSS of
 * the node process during the harvests.
 *   --docs N (HARVEST_DOCS, default 100000; fewer for a quick run)  --page N (HARVEST_PAGE, default 100: doc_limit)
 *   --couchdb URL (BENCH_COUCHDB_URL): the node and the raw view reads on that CouchDB 3.x
 *   HARVEST_PAYLOAD=nsdl_dc keeps the corpus in nsdl_dc, so ListRecords oai_dc crosswalks every
 *   record (what a harvester asking a NSDL node for oai_dc meets); by default the records are oai_dc.
 *   BENCH_ACCEPT_ENCODING=identity: the harvests ask for no compression (bench/lib/pages.ts).
 * Goals: at least 0.7 of raw and 1,000 records/s; page 1,000 within 1.5x page 1; RSS flat, < 300 MB.
 * Beside each harvest, the CPU each process spent per page (the store's for CouchDB when
 * BENCH_COUCHDB_PID names its beam.smp); and the JSON harvest through a minimal Node front
 * (bench/lib/minimal-front.ts: the same view pages, parsed, mapped and serialised, nothing more),
 * the floor a ratio goal can be read against on a machine whose cores the three processes share.
 */
import { startNodeProcess, report, round, rawViewPages, secondsSince, rssOf, loadBenchCorpus, buildViews, benchOptions, prepareStore, storeEndpoint, storePid } from './support.js';
import { harvestJson, harvestOai, median } from './lib/pages.js';
import { cpuMeter, type Processes } from './lib/cpu.js';
import { startFront } from './lib/front-process.js';
import { codeUnitKey } from '../src/storage/view-keys.js';

const options = benchOptions({ docs: 100000, docsEnv: 'HARVEST_DOCS', page: 100, pageEnv: 'HARVEST_PAGE' });
const store = await prepareStore(options.couchdb);
const TOTAL = options.docs;
const PAGE = options.page;
const JSON_PREFIX = 'LR_JSON_0.10.0';
const data = { granularity: 'YYYY-MM-DDThh:mm:ssZ', doc_limit: PAGE, metadataformats: [{ metadataFormat: { metadataPrefix: JSON_PREFIX } }] };

/** An oai_dc record from the dc:* elements of an NSDL DC template (the same metadata, plain Dublin Core). */
function oaiDc(nsdl: string, i: number): string {
  const elements = [...nsdl.matchAll(/<dc:(title|description|subject|creator|publisher|language|rights)>[^<]*<\/dc:\1>/g)].map((m) => m[0]).join('');
  return '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" '
    + 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">'
    + `<dc:identifier>http://example.org/resource/${i}</dc:identifier>${elements}</oai_dc:dc>`;
}

/** The generated corpus as oai_dc records (loadBenchCorpus writes them in the stored shape). */
const CROSSWALKED = process.env.HARVEST_PAYLOAD === 'nsdl_dc';
const asOaiDc = (doc: Record<string, unknown>, i: number): Record<string, unknown> => ({
  ...doc, payload_schema: ['oai_dc'], payload_schema_locator: 'http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  resource_data: oaiDc(String(doc.resource_data), i),
});

const mb = (bytes: number): number => round(bytes / 1024 / 1024);

const node = await startNodeProcess({ services: { harvest: { service_data: data }, oai_pmh: { service_data: data } } }, store);
try {
  process.stdout.write(`loading ${TOTAL} documents... `);
  const loadStart = process.hrtime.bigint();
  await loadBenchCorpus(node, TOTAL, 1000, CROSSWALKED ? (doc) => doc : asOaiDc);
  process.stdout.write(`done in ${round(secondsSince(loadStart))} s; building views... `);
  const indexStart = process.hrtime.bigint();
  await buildViews(node);
  process.stdout.write(`done in ${round(secondsSince(indexStart))} s\n`);

  // The node is its own process (its embedded store is another): sample the node's RSS throughout.
  const rssStart = rssOf(node.pid);
  let rssPeak = rssStart;
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssOf(node.pid)); }, 50);

  // Each harvest with the CPU its processes spent per page of it.
  const storeProcess = storePid(node);
  const client = process.pid;
  const metered = async <R extends { pages: unknown[] }>(processes: Processes, harvest: () => Promise<R>): Promise<R & { cpu: string }> => {
    const meter = cpuMeter(processes);
    const result = await harvest();
    return { ...result, cpu: meter.per(result.pages.length, 'page') };
  };
  const ours: Processes = { store: storeProcess, node: node.pid, client };
  // oai_dc lists every document (src/services/oai-pmh/oai-dc.ts): the node reads the by_node_timestamp view for it.
  const raw = await metered({ store: storeProcess, client }, () => (CROSSWALKED
    ? rawViewPages(node, 'harvest', 'by_node_timestamp', PAGE, {})
    : rawViewPages(node, 'oai-pmh', 'by_schema', PAGE, { startkey: [codeUnitKey('oai_dc')], endkey: [codeUnitKey('oai_dc'), {}] })));
  const oai = await metered(ours, () => harvestOai(node.url, 'oai_dc'));
  const rawJson = await metered({ store: storeProcess, client }, () => rawViewPages(node, 'harvest', 'by_node_timestamp', PAGE, {}));
  const json = await metered(ours, () => harvestJson(node.url));
  clearInterval(sampler);
  const rssEnd = rssOf(node.pid);
  // The floor: the same JSON harvest through the least a Node front does, in its own process as the node is.
  const endpoint = storeEndpoint(node, store);
  const front = await startFront({ store: endpoint.url, auth: endpoint.auth, db: node.names.resourceData, transport: 'fetch', connections: 1, page: PAGE });
  const floor = await metered({ store: storeProcess, front: front.child.pid, client }, () => harvestJson(front.url)).finally(() => front.child.kill('SIGTERM'));
  for (const [name, count] of [['raw oai_dc', raw.count], ['ListRecords', oai.count], ['raw', rawJson.count], ['listrecords', json.count], ['minimal front', floor.count]] as const) {
    if (count !== TOTAL) throw new Error(`${name} read ${count} records, ${TOTAL} are stored`);
  }
  const rate = (r: { count: number; seconds: number }): number => r.count / r.seconds;
  process.stdout.write(`OAI-PMH ListRecords oai_dc${CROSSWALKED ? ' (crosswalked from nsdl_dc)' : ''}: ${round(rate(oai))} records/s; raw view read ${round(rate(raw))} records/s; ratio ${round(rate(oai) / rate(raw), 2)}\n`);
  process.stdout.write(`  ${oai.cpu}; raw: ${raw.cpu}\n`);
  process.stdout.write(`JSON listrecords: ${round(rate(json))} records/s; raw view read ${round(rate(rawJson))} records/s; ratio ${round(rate(json) / rate(rawJson), 2)}\n`);
  process.stdout.write(`  ${json.cpu}; raw: ${rawJson.cpu}\n`);
  process.stdout.write(`JSON listrecords through a minimal Node front (the floor): ${round(rate(floor))} records/s; ratio ${round(rate(floor) / rate(rawJson), 2)} of the raw read; the node ${round(rate(json) / rate(floor), 2)} of it\n`);
  process.stdout.write(`  ${floor.cpu}\n`);

  // Page 1 versus page 1,000 (or the deepest page of a smaller corpus): stateless tokens can be replayed.
  const deepIndex = Math.min(998, oai.tokens.length - 1);
  const deepToken = oai.tokens[deepIndex];
  const timed = async (url: string): Promise<number> => {
    const t0 = process.hrtime.bigint();
    await (await fetch(url)).text();
    return secondsSince(t0) * 1000;
  };
  const first: number[] = [];
  const deep: number[] = [];
  for (let i = 0; i < 9; i += 1) {
    first.push(await timed(`${node.url}/OAI-PMH?verb=ListRecords&metadataPrefix=oai_dc`));
    if (deepToken) deep.push(await timed(`${node.url}/OAI-PMH?verb=ListRecords&resumptionToken=${encodeURIComponent(deepToken)}`));
  }
  process.stdout.write(`latency (ListRecords pages of ${PAGE}, median of 9): page 1 ${round(median(first))} ms, page ${deepIndex + 2} ${round(median(deep))} ms, ratio ${round(median(deep) / median(first), 2)}\n`);
  process.stdout.write(`node process RSS: ${mb(rssStart)} MB before, peak ${mb(rssPeak)} MB, ${mb(rssEnd)} MB after the harvests\n`);
  // The closing line: the slower of the two harvests against its raw read.
  const oursSlower = rate(oai) / rate(raw) <= rate(json) / rate(rawJson) ? { ours: rate(oai), raw: rate(raw) } : { ours: rate(json), raw: rate(rawJson) };
  report('harvest', oursSlower.ours, oursSlower.raw, 'records/s');
} finally {
  await node.close();
}
