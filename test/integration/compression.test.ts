/**
 * Responses compressed by Accept-Encoding (src/http/compression.ts): gzip or deflate on harvest,
 * OAI-PMH and obtain answers (the streamed ALL included), identity when not asked, never on the
 * inbound replication endpoint; OAI-PMH Identify advertises the encodings (§4.2 <compression>).
 * Raw node:http requests: fetch would decompress (and ask for brotli) by itself.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { assertValidOai } from '../support/xml.js';

interface Raw { status: number; encoding: string | undefined; bytes: Buffer }

function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

const decoded = (raw: Raw): string => (raw.encoding === 'gzip' ? zlib.gunzipSync(raw.bytes) : raw.encoding === 'deflate' ? zlib.inflateSync(raw.bytes) : raw.bytes).toString('utf8');
const withoutDate = (text: string): unknown => ({ ...(JSON.parse(text) as Record<string, unknown>), responseDate: undefined });

describe('response compression', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: { service_data: { flow_control: false } } } } });
    await addAccount(node, 'zipper', 'zipper-password-1');
    const { status } = await postJson(`${node.url}/publish`, { documents: nsdlDocs(40) }, { authorization: basicAuth('zipper', 'zipper-password-1') });
    expect(status).to.equal(200);
  });
  after(async () => node.stop());

  it('gzip and deflate when asked, identity otherwise, with the same content', async () => {
    const url = `${node.url}/harvest/listrecords`;
    const plain = await rawGet(url);
    const gzip = await rawGet(url, { 'accept-encoding': 'gzip' });
    const deflate = await rawGet(url, { 'accept-encoding': 'deflate' });
    expect(plain.encoding).to.equal(undefined);
    expect(gzip.encoding).to.equal('gzip');
    expect(deflate.encoding).to.equal('deflate');
    expect(withoutDate(decoded(gzip))).to.deep.equal(withoutDate(decoded(plain)));
    expect(withoutDate(decoded(deflate))).to.deep.equal(withoutDate(decoded(plain)));
    expect(gzip.bytes.length).to.be.below(plain.bytes.length / 3);
    // br is not offered: a client asking only for it gets identity.
    expect((await rawGet(url, { 'accept-encoding': 'br' })).encoding).to.equal(undefined);
  });

  it('compresses at COMPRESSION_LEVEL, 1 by default, and at the level configured', async () => {
    const url = `${node.url}/harvest/listrecords`;
    const gzip = await rawGet(url, { 'accept-encoding': 'gzip' });
    // One body, one zlib pass: the bytes are what zlib makes of the text at that level.
    expect(gzip.bytes.equals(zlib.gzipSync(decoded(gzip), { level: 1 }))).to.equal(true);
    expect(gzip.bytes.equals(zlib.gzipSync(decoded(gzip), { level: 6 }))).to.equal(false);
    const deflate = await rawGet(url, { 'accept-encoding': 'deflate' });
    expect(deflate.bytes.equals(zlib.deflateSync(decoded(deflate), { level: 1 }))).to.equal(true);
    const smallest = await startTestNode({ env: { COMPRESSION_LEVEL: '9' } });
    try {
      await addAccount(smallest, 'zipper', 'zipper-password-1');
      await postJson(`${smallest.url}/publish`, { documents: nsdlDocs(40) }, { authorization: basicAuth('zipper', 'zipper-password-1') });
      const level9 = await rawGet(`${smallest.url}/harvest/listrecords`, { 'accept-encoding': 'gzip' });
      expect(level9.bytes.equals(zlib.gzipSync(decoded(level9), { level: 9 }))).to.equal(true);
      expect(level9.bytes.length).to.be.below(gzip.bytes.length);
    } finally {
      await smallest.stop();
    }
  });

  it('a client that rules out every coding, identity too, gets the answer without content coding (RFC 9110 §12.5.3), not a 500', async () => {
    const url = `${node.url}/harvest/listrecords`;
    const plain = await rawGet(url);
    for (const accept of ['identity;q=0', '*;q=0', 'br, identity;q=0']) {
      const answer = await rawGet(url, { 'accept-encoding': accept });
      expect(answer.status, accept).to.equal(200);
      expect(answer.encoding, accept).to.equal(undefined);
      expect(withoutDate(decoded(answer)), accept).to.deep.equal(withoutDate(decoded(plain)));
    }
    const gzipOnly = await rawGet(url, { 'accept-encoding': 'gzip, identity;q=0' });
    expect(gzipOnly.encoding).to.equal('gzip');
  });

  it('compresses the streamed obtain ALL and OAI-PMH lists', async () => {
    const all = await rawGet(`${node.url}/obtain`, { 'accept-encoding': 'gzip' });
    expect(all.encoding).to.equal('gzip');
    expect((JSON.parse(decoded(all)) as { documents: unknown[] }).documents).to.have.length(40);
    const list = await rawGet(`${node.url}/OAI-PMH?verb=ListIdentifiers&metadataPrefix=nsdl_dc`, { 'accept-encoding': 'gzip' });
    expect(list.encoding).to.equal('gzip');
    expect(decoded(list).match(/<header>/g)).to.have.length(40);
  });

  it('Identify advertises gzip and deflate, schema-valid', async () => {
    const identify = decoded(await rawGet(`${node.url}/OAI-PMH?verb=Identify`));
    expect(identify).to.include('<compression>gzip</compression><compression>deflate</compression>');
    assertValidOai(identify, 'official');
  });

  it('leaves the inbound replication endpoint alone', async () => {
    await addAccount(node, 'netadmin', 'netadmin-password-1', 'network_admin');
    const inbound = await rawGet(`${node.url}/incoming/`, { 'accept-encoding': 'gzip', authorization: basicAuth('netadmin', 'netadmin-password-1') });
    expect(inbound.status).to.equal(200);
    expect(inbound.encoding).to.equal(undefined);
  });
});
