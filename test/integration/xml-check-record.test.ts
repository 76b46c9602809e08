/**
 * Publish keeps the record of its check of inline XML on the stored document (a node-private
 * field, src/domain/node-private-fields.ts), and OAI-PMH emission trusts it instead of parsing the
 * text again, only while it holds for the text as stored (src/protocol/oai-pmh/metadata-fragment.ts).
 * Inbound distribution keeps its own record as well, never the source's.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { startTestNetwork, publish as publishAt, distribute, settled, type TestNetwork, type NetworkNode } from '../support/network.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const FIELD = 'node_xml_checked';
const sha256 = (text: string): string => createHash('sha256').update(text).digest('base64');

async function getRecord(node: TestNode, id: string): Promise<string> {
  return (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=nsdl_dc&identifier=${encodeURIComponent(id)}`)).text();
}

describe('the record of publish\'s XML check', () => {
  let node: TestNode;
  const db = (): ReturnType<TestNode['couch']['use']> => node.couch.use(node.names.resourceData);
  const stored = async (id: string): Promise<Doc> => await db().get(id) as unknown as Doc;

  async function publish(doc: Doc): Promise<void> {
    const { body } = await postJson(`${node.url}/publish`, { documents: [doc] }, AUTH);
    expect(body.document_results, JSON.stringify(body)).to.deep.include({ doc_ID: doc.doc_ID, OK: true });
  }

  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => node.stop());

  it('is kept on the stored document, is the node\'s own (never the publisher\'s) and is never served', async () => {
    const doc: Doc = { ...(nsdlDocs(1)[0] as Doc), doc_ID: 'xml-record-1', [FIELD]: { rules: 1, sha256: 'forged', xmlns_reset_at: 3 } };
    await publish(doc);
    const data = doc.resource_data as string;
    expect((await stored('xml-record-1'))[FIELD]).to.deep.equal({ rules: 1, sha256: sha256(data), xmlns_reset_at: -1 });
    const obtained = await (await fetch(`${node.url}/obtain?request_ID=xml-record-1`)).text();
    expect(obtained).to.include('xml-record-1').and.not.include(FIELD);
    const record = await getRecord(node, 'xml-record-1');
    expect(record).to.include('<nsdl_dc:nsdl_dc ').and.not.include(FIELD);
  });

  it('records where xmlns="" goes, and emission puts it there without parsing', async () => {
    const data = '<?xml version="1.0"?>\n<r:rec xmlns:r="urn:r"><title>t</title></r:rec>';
    await publish({ ...(nsdlDocs(1)[0] as Doc), doc_ID: 'xml-record-2', resource_data: data });
    expect((await stored('xml-record-2'))[FIELD]).to.deep.equal({ rules: 1, sha256: sha256(data), xmlns_reset_at: 6 });
    expect(await getRecord(node, 'xml-record-2')).to.include('<r:rec xmlns="" xmlns:r="urn:r"><title>t</title></r:rec>');
  });

  it('a text changed in the store since is checked in full again; a record that holds for it is trusted', async () => {
    await publish({ ...(nsdlDocs(1)[0] as Doc), doc_ID: 'xml-record-3' });
    const doc = await stored('xml-record-3');
    // Two root elements: not one well-formed element, so OAI-PMH cannot emit it.
    const broken = `${doc.resource_data as string}<second/>`;
    await db().insert({ ...doc, resource_data: broken } as never);
    expect(await getRecord(node, 'xml-record-3')).to.match(/<error code="cannotDisseminateFormat"/);
    // Only code with the store's admin rights can write the record (publish and inbound never take
    // it), and emission takes its word: the text is not parsed.
    const edited = await stored('xml-record-3');
    await db().insert({ ...edited, [FIELD]: { rules: 1, sha256: sha256(broken), xmlns_reset_at: -1 } } as never);
    expect(await getRecord(node, 'xml-record-3')).to.include('<second/>').and.not.match(/<error code=/);
    // A record of other rules (a later version's) is not trusted.
    const recorded = await stored('xml-record-3');
    await db().insert({ ...recorded, [FIELD]: { rules: 2, sha256: sha256(broken), xmlns_reset_at: -1 } } as never);
    expect(await getRecord(node, 'xml-record-3')).to.match(/<error code="cannotDisseminateFormat"/);
  });
});

describe('the record of the XML check at a destination', function () {
  this.timeout(180000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;

  before(async () => {
    net = await startTestNetwork({ nodes: 2, topology: 'chain' });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net.stop(); });

  it('a document that arrived by distribution carries the destination\'s own record, not the source\'s, and is served from it', async () => {
    const doc: Doc = { ...(nsdlDocs(1)[0] as Doc), doc_ID: 'xml-record-distributed' };
    await publishAt(a, [doc]);
    // The source's stored document carries a record that does not hold (written with the store's rights).
    const source = a.node.couch.use(a.node.names.resourceData);
    const held = await source.get('xml-record-distributed') as unknown as Doc;
    await source.insert({ ...held, [FIELD]: { rules: 1, sha256: 'forged', xmlns_reset_at: 3 } } as never);
    expect((await distribute(a)).status).to.equal(200);
    const arrived = (await settled(b, 1)).get('xml-record-distributed') as unknown as Doc;
    // Without it, OAI-PMH at the destination parsed every distributed record again at each harvest.
    expect(arrived[FIELD]).to.deep.equal({ rules: 1, sha256: sha256(doc.resource_data as string), xmlns_reset_at: -1 });
    const record = await (await fetch(`${b.node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=nsdl_dc&identifier=xml-record-distributed`)).text();
    expect(record).to.include('<nsdl_dc:nsdl_dc ').and.not.include(FIELD);
  });
});
