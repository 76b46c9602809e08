/**
 * A replacement that reaches a node before its original (a network audit's finding 8): the
 * original arriving later was stored live beside its replacement, so what a node served depended
 * on the order of arrival. The replacement now leaves an advance tombstone
 * (src/domain/advance-tombstone.ts) that nothing serves, counts or distributes, and the original
 * is decided against it when it comes, through /incoming (as a peer's replicator sends it) and
 * through Basic Publish.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { getJson, postJson, currentStatus } from '../support/node.js';
import { fixture, keyServer, replacementChain, type Doc } from '../support/documents.js';
import { startTestNetwork, distribute, outbound, authOf, type NetworkNode, type TestNetwork } from '../support/network.js';
import { generateNodeKeyPair } from '../../src/domain/signature/node-key-pair.js';
import { signEnvelope } from '../../src/domain/signature/lr-pgp-sign.js';
import { fetchXml, NS } from '../support/atompub.js';

type Keys = Awaited<ReturnType<typeof generateNodeKeyPair>> & { location: string };

const REPLACED = 'rejected replacement: this doc_ID has been replaced and cannot be published again';
const AT = '2026-01-01T00:00:00.000000Z';
const NSDL = (fixture<{ documents: Doc[] }>('corpus/nsdl_dc-100docs.json').documents[0] as Doc).resource_data as string;

/** A 0.49.0 nsdl_dc document (replacement needs 0.49 or later) with the given doc_ID and fields. */
function doc049(docId: string, fields: Doc = {}): Doc {
  const { doc_ID: _id, replaces: _r, ...template } = replacementChain()[0] as Doc;
  void _id; void _r;
  return { ...template, doc_ID: docId, resource_locator: `http://example.org/${docId}`, payload_schema: ['nsdl_dc'], resource_data: NSDL, ...fields };
}

describe('an original that arrives after its replacement', function () {
  this.timeout(120000);
  let net: TestNetwork;
  let a: NetworkNode;
  let b: NetworkNode;
  let keys: Awaited<ReturnType<typeof keyServer>>;
  let signer: Keys;
  let stranger: Keys;

  before(async () => {
    keys = await keyServer();
    const make = async (name: string): Promise<Keys> => {
      const pair = await generateNodeKeyPair(name, `${name}@example.org`);
      return { ...pair, location: keys.put(name, pair.publicKeyArmored) };
    };
    [signer, stranger] = await Promise.all([make('signer'), make('stranger')]);
    // Node a is where the documents arrive; b is its destination (the advance tombstone must not travel).
    net = await startTestNetwork({ nodes: 2, topology: 'chain', nodeConfig: () => ({ policy: { allow_private_fetch: true } }) });
    [a, b] = net.nodes as [NetworkNode, NetworkNode];
  });
  after(async () => { await net?.stop(); await keys?.close(); });

  const sign = (doc: Doc, key: Keys): Promise<Doc> => signEnvelope(doc, key.privateKeyArmored, undefined, [key.location]);
  /** The document as a peer's replicator sends it: signed there, in its stored form. */
  const fromPeer = async (doc: Doc, key?: Keys): Promise<Doc> => {
    const signed = key ? await sign(doc, key) : doc;
    const rev = `1-${createHash('md5').update(String(doc.doc_ID)).digest('hex')}`;
    return { ...signed, _id: doc.doc_ID, _rev: rev, publish_node: 'peer', publishing_node: 'peer', create_timestamp: AT, update_timestamp: AT, node_timestamp: AT };
  };
  /** The documents sent as a peer's replicator sends them; the answer lists what was refused. */
  const toIncoming = async (docs: Doc[]): Promise<unknown> => {
    const response = await fetch(`${a.node.url}/incoming/_bulk_docs`, { method: 'POST', headers: { ...authOf(a.admin), 'content-type': 'application/json' }, body: JSON.stringify({ docs, new_edits: false }) });
    const text = await response.text();
    expect(response.status, text).to.equal(201);
    return JSON.parse(text) as unknown;
  };
  const stored = async (id: string): Promise<Doc | undefined> => {
    try {
      return await a.node.couch.use(a.node.names.resourceData).get(id) as unknown as Doc;
    } catch {
      return undefined;
    }
  };
  const obtained = async (id: string): Promise<unknown> => {
    const { body } = await getJson(`${a.node.url}/obtain?request_ID=${encodeURIComponent(id)}&by_doc_ID=T`);
    return (body.documents as { document: unknown }[])[0]?.document;
  };
  /** The OAI-PMH GetRecord answer: 'deleted', 'live', or the error code. */
  const oaiRecord = async (id: string): Promise<string> => {
    const text = await (await fetch(`${a.node.url}/OAI-PMH?verb=GetRecord&metadataPrefix=oai_dc&identifier=${encodeURIComponent(id)}`)).text();
    const error = /<error code="([^"]+)"/.exec(text);
    if (error) return error[1] as string;
    return /<header status="deleted">/.test(text) ? 'deleted' : 'live';
  };
  /** The JSON harvest getrecord answer: the header's status, or the error code. */
  const jsonRecord = async (id: string): Promise<unknown> => {
    const { body } = await postJson(`${a.node.url}/harvest/getrecord`, { request_ID: id, by_doc_ID: true });
    const record = ((body.getrecord as Doc | undefined)?.record as Doc[] | undefined)?.[0];
    return record ? (record.header as Doc).status : body.error;
  };
  /** Every identifier both harvests list (all records, deleted ones too). */
  const listed = async (): Promise<string[]> => {
    const { body } = await getJson(`${a.node.url}/harvest/listidentifiers`);
    const json = (body.listidentifiers as { header: { identifier: string } }[]).map((item) => item.header.identifier);
    const oai = await (await fetch(`${a.node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=oai_dc`)).text();
    return [...json, ...[...oai.matchAll(/<identifier>([^<]+)<\/identifier>/g)].map((match) => match[1] as string)];
  };
  const liveCount = async (): Promise<number> => (await currentStatus(a.node.url)).doc_count as number;
  const lastIncomingLine = (): Doc => JSON.parse((net.logs[0] ?? []).filter((line) => line.includes('incoming documents processed')).at(-1) ?? '{}') as Doc;

  it('the replacement leaves an advance tombstone that nothing serves, harvests, counts or distributes', async () => {
    const before = await liveCount();
    await toIncoming([await fromPeer(doc049('order:r1', { replaces: ['order:o1'] }), signer)]);
    expect(await stored('order:o1')).to.deep.include({ doc_type: 'pending_tombstone' });
    expect(((await stored('order:o1'))?.replaced_by as Doc).doc_ID).to.equal('order:r1');
    expect(await obtained('order:o1')).to.equal(null);
    expect(await oaiRecord('order:o1')).to.equal('idDoesNotExist');
    expect(await jsonRecord('order:o1')).to.equal('idDoesNotExist');
    const deleted = await postJson(`${a.node.url}/delete`, { request_IDs: ['order:o1'] }, authOf(a.publisher));
    expect(deleted.body.document_results).to.deep.equal([{ doc_ID: 'order:o1', OK: false, error: 'document doesn\'t exist' }]);
    const identifiers = await listed();
    expect(identifiers).to.include('order:r1');
    expect(identifiers).not.to.include('order:o1');
    expect(await liveCount()).to.equal(before + 1);
    const answer = await distribute(a);
    expect(answer.status).to.equal(200);
    expect(await outbound(a, b)).to.include({ outcome: 'ok', docs_written: 1 });
    const atB = await b.node.couch.use(b.node.names.resourceData).get('order:r1') as unknown as Doc;
    expect(atB.doc_type).to.equal('resource_data');
  });

  it('the original arriving after it is stored as its tombstone: obtain, OAI-PMH and JSON harvest agree it is deleted', async () => {
    const before = await liveCount();
    await toIncoming([await fromPeer(doc049('order:o1'), signer)]);
    const tombstone = await stored('order:o1') as Doc;
    expect(tombstone).to.include({ doc_type: 'tombstone', doc_ID: 'order:o1', resource_locator: 'http://example.org/order:o1' });
    expect(tombstone.payload_schema).to.deep.equal(['nsdl_dc']);
    expect(tombstone.replaced_by).to.deep.equal({ doc_ID: 'order:r1', public_key_fingerprint: signer.fingerprint.toUpperCase(), public_key_locations: [signer.location] });
    expect(tombstone).not.to.have.property('deleted');
    expect(await obtained('order:o1')).to.equal(null);
    expect(await oaiRecord('order:o1')).to.equal('deleted');
    expect(await jsonRecord('order:o1')).to.equal('deleted');
    expect(await liveCount()).to.equal(before);
    // Taken in as replaced, not refused.
    expect(lastIncomingLine()).to.include({ superseded: 1, stored: 0, rejected: 0 });
    expect(await obtained('order:r1')).to.be.an('array').with.length(1);
    // Another copy of it (a peer that has not seen the replacement yet): taken in as replaced
    // again, not refused, so the source's docs_refused does not count it.
    expect(await toIncoming([await fromPeer(doc049('order:o1'), signer)])).to.deep.equal([]);
    expect(lastIncomingLine()).to.include({ superseded: 1, stored: 0, rejected: 0 });
    expect(await stored('order:o1')).to.include({ doc_type: 'tombstone' });
  });

  it('a deletion document that arrives first: the original ends deleted, also when the replacement is itself replaced first', async () => {
    await toIncoming([await fromPeer(doc049('order:d2', { replaces: ['order:o2'], payload_placement: 'none', resource_data: undefined, payload_schema: undefined, resource_locator: undefined }), signer)]);
    await toIncoming([await fromPeer(doc049('order:o2'), signer)]);
    expect(await stored('order:o2')).to.include({ doc_type: 'tombstone', deleted: true });
    expect(await oaiRecord('order:o2')).to.equal('deleted');
    // r3 replaces o3 (not held), then r3v2 replaces r3: o3 was still replaced by r3.
    await toIncoming([await fromPeer(doc049('order:r3', { replaces: ['order:o3'] }), signer)]);
    await toIncoming([await fromPeer(doc049('order:r3v2', { replaces: ['order:r3'] }), signer)]);
    expect(await stored('order:r3')).to.include({ doc_type: 'tombstone' });
    await toIncoming([await fromPeer(doc049('order:o3'), signer)]);
    expect(((await stored('order:o3') as Doc).replaced_by as Doc).doc_ID).to.equal('order:r3');
    expect(await obtained('order:o3')).to.equal(null);
  });

  it('a superseded original still replaces what it names itself: a chain ends the same in either order', async () => {
    await toIncoming([await fromPeer(doc049('order:w11'), signer)]);
    await toIncoming([await fromPeer(doc049('order:r11', { replaces: ['order:o11'] }), signer)]);
    await toIncoming([await fromPeer(doc049('order:o11', { replaces: ['order:w11'] }), signer)]);
    expect(((await stored('order:o11') as Doc).replaced_by as Doc).doc_ID).to.equal('order:r11');
    expect(((await stored('order:w11') as Doc).replaced_by as Doc).doc_ID).to.equal('order:o11');
    expect(await oaiRecord('order:w11')).to.equal('deleted');
  });

  it('an original signed by another key than the replacement stays live: it was no real replacement', async () => {
    await toIncoming([await fromPeer(doc049('order:r4', { replaces: ['order:o4'] }), stranger)]);
    await toIncoming([await fromPeer(doc049('order:o4'), signer)]);
    expect(await stored('order:o4')).to.include({ doc_type: 'resource_data' });
    expect(await obtained('order:o4')).to.be.an('array').with.length(1);
    expect(await oaiRecord('order:o4')).to.equal('live');
    expect(await jsonRecord('order:o4')).to.equal('active');
    expect(lastIncomingLine()).to.include({ stored: 1, superseded: 0, rejected: 0 });
  });

  it('a replacement and its original in one batch, the replacement first: the original is tombstoned when the key permits it', async () => {
    await toIncoming([await fromPeer(doc049('order:r5', { replaces: ['order:o5'] }), signer), await fromPeer(doc049('order:o5'), signer)]);
    expect(await stored('order:o5')).to.include({ doc_type: 'tombstone' });
    await toIncoming([await fromPeer(doc049('order:r6', { replaces: ['order:o6'] }), stranger), await fromPeer(doc049('order:o6'), signer)]);
    expect(await stored('order:o6')).to.include({ doc_type: 'resource_data' });
  });

  it('an unsigned replacement leaves no advance tombstone (replaces needs a key)', async () => {
    await toIncoming([await fromPeer(doc049('order:r7', { replaces: ['order:o7'] }))]);
    expect(await stored('order:o7')).to.equal(undefined);
  });

  it('the same order through Basic Publish: the original is stored as its tombstone and answered as a replaced doc_ID', async () => {
    const publish = async (doc: Doc): Promise<unknown> => {
      const { status, body } = await postJson(`${a.node.url}/publish`, { documents: [doc] }, authOf(a.publisher));
      expect(status).to.equal(200);
      return (body.document_results as unknown[])[0];
    };
    expect(await publish(await sign(doc049('order:r8', { replaces: ['order:o8'] }), signer))).to.deep.equal({ doc_ID: 'order:r8', OK: true });
    expect(await stored('order:o8')).to.include({ doc_type: 'pending_tombstone' });
    expect(await publish(await sign(doc049('order:o8'), signer))).to.deep.equal({ doc_ID: 'order:o8', OK: false, error: REPLACED });
    expect(await stored('order:o8')).to.include({ doc_type: 'tombstone' });
    expect(await obtained('order:o8')).to.equal(null);
    expect(await oaiRecord('order:o8')).to.equal('deleted');
    expect(await jsonRecord('order:o8')).to.equal('deleted');
    // Another key: published live over the advance tombstone.
    expect(await publish(await sign(doc049('order:r9', { replaces: ['order:o9'] }), stranger))).to.deep.equal({ doc_ID: 'order:r9', OK: true });
    expect(await publish(await sign(doc049('order:o9'), signer))).to.deep.equal({ doc_ID: 'order:o9', OK: true });
    expect(await obtained('order:o9')).to.be.an('array').with.length(1);
  });

  it('an unsigned original published after its replacement by the same account stays live: `replaces` needs a key, which it has not', async () => {
    const publish = async (doc: Doc): Promise<unknown> => (await postJson(`${a.node.url}/publish`, { documents: [doc] }, authOf(a.publisher))).body.document_results;
    expect(await publish(await sign(doc049('order:r12', { replaces: ['order:o12'] }), signer))).to.deep.equal([{ doc_ID: 'order:r12', OK: true }]);
    expect(await stored('order:o12')).to.include({ doc_type: 'pending_tombstone' });
    // The same account publishes the original, unsigned (its submitter is not the account's: no proxy signature).
    expect(await publish(doc049('order:o12'))).to.deep.equal([{ doc_ID: 'order:o12', OK: true }]);
    expect(await stored('order:o12')).to.include({ doc_type: 'resource_data' }).and.not.have.property('digital_signature');
    expect(await obtained('order:o12')).to.be.an('array').with.length(1);
    expect(await oaiRecord('order:o12')).to.equal('live');
  });

  it('a peer\'s newer copy of an unsigned document published here is refused: only its owner or a trusted super key replaces it', async () => {
    const { body } = await postJson(`${a.node.url}/publish`, { documents: [doc049('order:u13')] }, authOf(a.publisher));
    expect(body.document_results).to.deep.equal([{ doc_ID: 'order:u13', OK: true }]);
    // Unsigned, with an update_timestamp later than the one held (an older copy would be stale, never decided).
    const hijack = { ...await fromPeer(doc049('order:u13', { resource_locator: 'http://example.org/hijacked' })), update_timestamp: '2999-01-01T00:00:00.000000Z' };
    await toIncoming([hijack]);
    expect(lastIncomingLine()).to.include({ stored: 0, rejected: 1 });
    expect(await stored('order:u13')).to.include({ doc_type: 'resource_data', resource_locator: 'http://example.org/order:u13' });
  });

  it('a replacement refused once its doc_ID turns out to be held (by another key) tombstones nothing it names', async () => {
    const publish = async (doc: Doc): Promise<unknown> => (await postJson(`${a.node.url}/publish`, { documents: [doc] }, authOf(a.publisher))).body.document_results;
    expect(await publish(await sign(doc049('order:o14'), signer))).to.deep.equal([{ doc_ID: 'order:o14', OK: true }]);
    expect(await publish(await sign(doc049('order:x14'), stranger))).to.deep.equal([{ doc_ID: 'order:x14', OK: true }]);
    // The signer may replace o14, but not x14, the doc_ID its replacement takes: found held only when its write meets it.
    const results = await publish(await sign(doc049('order:x14', { replaces: ['order:o14'] }), signer)) as Doc[];
    expect(results).to.have.length(1);
    expect(results[0]).to.include({ doc_ID: 'order:x14', OK: false });
    expect(results[0]?.error).to.match(/^rejected replacement: signed with a different key/);
    expect(await stored('order:o14')).to.include({ doc_type: 'resource_data' });
    expect(await obtained('order:o14')).to.be.an('array').with.length(1);
    expect(((await stored('order:x14'))?.digital_signature as Doc).key_location).to.deep.equal([stranger.location]);
  });

  it('a SWORD deposit of such an original, X-No-Op too: refused as a replaced doc_ID, and only the real deposit writes its tombstone', async () => {
    expect((await postJson(`${a.node.url}/publish`, { documents: [await sign(doc049('order:r10', { replaces: ['order:o10'] }), signer)] }, authOf(a.publisher))).body.document_results)
      .to.deep.equal([{ doc_ID: 'order:r10', OK: true }]);
    const original = JSON.stringify(await sign(doc049('order:o10'), signer));
    const deposit = (headers: Record<string, string> = {}): Promise<{ status: number; xml: { text(ns: string, name: string): string | undefined } }> => fetchXml(`${a.node.url}/swordpub`, {
      method: 'POST', headers: { ...authOf(a.publisher), 'content-type': 'application/json', ...headers }, body: original,
    });
    const dryRun = await deposit({ 'x-no-op': 'true' });
    expect(dryRun.status).to.equal(400);
    expect(dryRun.xml.text(NS.atom, 'summary')).to.equal(REPLACED);
    expect(await stored('order:o10')).to.include({ doc_type: 'pending_tombstone' });
    const real = await deposit();
    expect(real.status).to.equal(400);
    expect(real.xml.text(NS.atom, 'summary')).to.equal(REPLACED);
    expect(await stored('order:o10')).to.include({ doc_type: 'tombstone' });
  });
});
