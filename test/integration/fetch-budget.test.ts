/**
 * What one publish request may make the node fetch (src/services/intake/key-resolver.ts): at most
 * MAX_FETCHES_PER_BATCH key locations it has not cached, four at a time. A batch naming a
 * thousand distinct key locations made the node fetch every one (2.5 GB in an audit).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { MAX_FETCHES_PER_BATCH } from '../../src/services/intake/key-resolver.js';

describe('key location fetches per publish request', function () {
  this.timeout(60000);
  let node: TestNode;
  let server: http.Server;
  let url: string;
  const seen = { requests: 0, running: 0, most: 0 };
  before(async () => {
    server = http.createServer((_req, res) => {
      seen.requests += 1;
      seen.running += 1;
      seen.most = Math.max(seen.most, seen.running);
      setTimeout(() => { seen.running -= 1; res.writeHead(404); res.end('no key here'); }, 50);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    node = await startTestNode({ nodeConfig: { policy: { verify_signatures: true, allow_private_fetch: true } } });
    await addAccount(node, 'alice', 'alice-password-1');
  });
  after(async () => {
    await node?.stop();
    server?.close();
  });

  it(`fetches at most ${MAX_FETCHES_PER_BATCH} uncached key locations, four at a time; the rest are refused by name`, async () => {
    const corpus = nsdlDocs(100);
    const docs = Array.from({ length: 40 }, (_, i) => ({
      ...(corpus[i % corpus.length] as Doc), doc_ID: `budget-${i}`,
      digital_signature: { signature: '-----BEGIN PGP SIGNED MESSAGE-----\nx', key_location: [`${url}/key-${i}`], signing_method: 'LR-PGP.1.0' },
    }));
    const { status, body } = await postJson(`${node.url}/publish`, { documents: docs }, { authorization: basicAuth('alice', 'alice-password-1') });
    expect(status).to.equal(200);
    const results = body.document_results as { OK: boolean; error?: string }[];
    expect(results.every((result) => !result.OK)).to.equal(true);
    expect(results.filter((result) => /not fetched, the batch names more than/.test(result.error ?? ''))).to.have.length(40 - MAX_FETCHES_PER_BATCH);
    expect(seen.requests).to.equal(MAX_FETCHES_PER_BATCH);
    expect(seen.most).to.be.at.most(4);
  });
});
