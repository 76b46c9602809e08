/**
 * A failed fetch is reported in the user's terms, never with resolver or socket internals
 * (`getaddrinfo ENOTFOUND …`), and the detail goes to the log (issue 14, defect 7).
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, getJson, postJson, settled, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';

const AUTH = { authorization: basicAuth('alice', 'alice-password-1') };
const NOWHERE = 'http://no-such-host.invalid';
const INTERNALS = /getaddrinfo|ENOTFOUND|EAI_AGAIN|ECONNREFUSED/;

describe('fetch failures in the user\'s terms', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { policy: { verify_signatures: true } } });
    await addAccount(node, 'alice', 'alice-password-1');
    await addAccount(node, 'admin', 'admin-password-1', 'network_admin');
    const ts = '2024-07-01T00:00:00.000000Z';
    await node.couch.use(node.names.resourceData).insert({
      _id: 'linked-1', doc_ID: 'linked-1', doc_type: 'resource_data', doc_version: '0.23.0', active: true, TOS: { submission_TOS: 'http://example.org/tos' },
      identity: { submitter: 'tester', submitter_type: 'agent' }, payload_placement: 'linked', payload_schema: ['oai_dc'],
      payload_schema_locator: `${NOWHERE}/record.xml`, resource_locator: 'http://example.org/linked-1', create_timestamp: ts, update_timestamp: ts, node_timestamp: ts,
    } as never);
  });
  after(async () => node.stop());

  it('OAI-PMH GetRecord of a linked record whose host does not resolve', async () => {
    const xml = await (await fetch(`${node.url}/OAI-PMH?verb=GetRecord&identifier=linked-1&metadataPrefix=oai_dc`)).text();
    expect(xml).to.match(/code="cannotDisseminateFormat"/);
    expect(xml).to.match(/host name could not be resolved/);
    expect(xml).to.not.match(INTERNALS);
    expect(node.logs.join('')).to.match(/no-such-host\.invalid/);
  });

  it('publish with a key_location whose host does not resolve', async () => {
    const [doc] = nsdlDocs(1);
    const signed = { ...doc, digital_signature: { signature: '-----BEGIN PGP SIGNED MESSAGE-----\nx', key_location: [`${NOWHERE}/key`], signing_method: 'LR-PGP.1.0' } };
    const { body } = await postJson(`${node.url}/publish`, { documents: [signed] }, AUTH);
    const [result] = body.document_results as { OK: boolean; error: string }[];
    expect(result?.OK).to.equal(false);
    expect(result?.error).to.match(/no public key could be fetched.*host name could not be resolved/);
    expect(result?.error).to.not.match(INTERNALS);
  });

  it('distribution to a destination whose host does not resolve: /distribute and /status say so without resolver internals', async () => {
    await node.deps.nodes.reconcileNodeDoc('connection:nowhere', () => ({ _id: 'connection:nowhere', doc_type: 'connection_description', active: true, gateway_connection: false, destination_node_url: NOWHERE }));
    await settled(node);
    const answer = await postJson(`${node.url}/distribute`, '', { authorization: basicAuth('admin', 'admin-password-1') });
    expect(answer.status).to.equal(200);
    expect(JSON.stringify(answer.body)).to.not.match(INTERNALS);
    const { body: status } = await getJson(`${node.url}/status`);
    const entry = (status.outbound as Record<string, Record<string, unknown>>)[NOWHERE];
    expect(entry).to.include({ outcome: 'unreachable', reason: `destination ${NOWHERE} could not be reached: its host name could not be resolved` });
    expect(entry).to.not.have.property('detail');
    expect(JSON.stringify(status)).to.not.match(INTERNALS);
    // The detail is the operator's: in the log, beside the destination.
    expect(node.logs.join('')).to.match(/GET \/destination failed: cannot resolve no-such-host\.invalid: getaddrinfo ENOTFOUND no-such-host\.invalid/);
  });
});
