/**
 * Who may delete and replace a document, and accounts with several roles (issue 13, items 1-3;
 * spec "Authentication", 8, "Basic Delete" and the state table of "States and transitions").
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, getJson, recordedOwner, type TestNode } from '../support/node.js';
import { nsdlDocs, type Doc } from '../support/documents.js';
import { waitFor } from '../support/network.js';
import { canonicalHash } from '../../src/domain/signature/canonical-hash.js';

const FEED = { authorization: basicAuth('nsdl-feed', 'feed-password-1') };
const MALLORY = { authorization: basicAuth('mallory', 'mallory-password-1') };
const BOB = { authorization: basicAuth('bob', 'bob-password-12') };
const OPS = { authorization: basicAuth('ops', 'ops-password-123') };
const ADMIN = { authorization: basicAuth('admin', 'admin-password-1') };
const JSON_PREFIX = 'LR_JSON_0.10.0';
const OWNER_FIELD = 'node_publisher_account';

type Result = { doc_ID: string; OK: boolean; error?: string };
const results = (body: Record<string, unknown>): Result[] => body.document_results as Result[];
const asPublishedFor = (doc: Doc, submitter: string, id: string): Doc => ({ ...doc, doc_ID: id, identity: { submitter, submitter_type: 'agent' } });

describe('ownership and roles (issue 13, items 1-3)', function () {
  this.timeout(60000);
  let node: TestNode;
  const stored = async (id: string): Promise<Doc> => node.couch.use(node.names.resourceData).get(id) as unknown as Promise<Doc>;

  before(async () => {
    node = await startTestNode({ nodeConfig: {
      services: {
        delete: { service_data: { delete_action: 'mark' } },
        oai_pmh: { service_data: { metadataformats: [{ metadataFormat: { metadataPrefix: JSON_PREFIX } }] } },
      },
    } });
    await addAccount(node, 'nsdl-feed', 'feed-password-1');
    await addAccount(node, 'mallory', 'mallory-password-1');
    await addAccount(node, 'bob', 'bob-password-12');
    await addAccount(node, 'ops', 'ops-password-123', ['publisher', 'network_admin']);
    await addAccount(node, 'admin', 'admin-password-1', 'network_admin');
    // Another account configured with the same submitter text as nsdl-feed.
    await addAccount(node, 'feed-twin', 'twin-password-1', 'publisher', 'nsdl-feed');
  });
  after(async () => node.stop());

  describe('1. the owner is the publishing account', () => {
    it('an account deletes the documents it published for the organisation named in identity.submitter', async () => {
      const published = await postJson(`${node.url}/publish`, { documents: [asPublishedFor(nsdlDocs(1)[0] as Doc, 'NSDL', 'own-1')] }, FEED);
      expect(results(published.body)).to.deep.equal([{ doc_ID: 'own-1', OK: true }]);
      const removal = await postJson(`${node.url}/delete`, { request_IDs: ['own-1'] }, FEED);
      expect(results(removal.body)).to.deep.equal([{ doc_ID: 'own-1', OK: true }]);
    });

    it('naming another account\'s submitter in identity does not hand the document to that account', async () => {
      const published = await postJson(`${node.url}/publish`, { documents: [asPublishedFor(nsdlDocs(2)[1] as Doc, 'bob', 'own-2')] }, MALLORY);
      expect(results(published.body)).to.deep.equal([{ doc_ID: 'own-2', OK: true }]);
      const byBob = await postJson(`${node.url}/delete`, { request_IDs: ['own-2'] }, BOB);
      expect(results(byBob.body)).to.deep.equal([{ doc_ID: 'own-2', OK: false, error: 'only the owner of a document may delete it' }]);
      const byMallory = await postJson(`${node.url}/delete`, { request_IDs: ['own-2'] }, MALLORY);
      expect(results(byMallory.body)).to.deep.equal([{ doc_ID: 'own-2', OK: true }]);
    });

    it('a publisher cannot set the owner field itself', async () => {
      const doc = { ...asPublishedFor(nsdlDocs(3)[2] as Doc, 'NSDL', 'own-3'), [OWNER_FIELD]: 'bob' };
      expect(results((await postJson(`${node.url}/publish`, { documents: [doc] }, MALLORY)).body)).to.deep.equal([{ doc_ID: 'own-3', OK: true }]);
      expect((await stored('own-3'))[OWNER_FIELD]).to.equal(await recordedOwner(node, 'mallory'));
      expect(results((await postJson(`${node.url}/delete`, { request_IDs: ['own-3'] }, BOB)).body)[0]?.OK).to.equal(false);
    });

    it('a proxy-signed document is replaced by its owner only, not by another account with the same submitter', async () => {
      const [first, second] = nsdlDocs(12).slice(10) as [Doc, Doc];
      expect(results((await postJson(`${node.url}/publish`, { documents: [asPublishedFor(first, 'nsdl-feed', 'proxy-own')] }, FEED)).body)[0]?.OK).to.equal(true);
      expect(await stored('proxy-own')).to.have.property('digital_signature');
      const update = asPublishedFor(second, 'nsdl-feed', 'proxy-own');
      const byTwin = await postJson(`${node.url}/publish`, { documents: [update] }, { authorization: basicAuth('feed-twin', 'twin-password-1') });
      expect(results(byTwin.body)).to.deep.equal([{ doc_ID: 'proxy-own', OK: false, error: 'rejected replacement: the original was published by another account of this node' }]);
      expect(results((await postJson(`${node.url}/publish`, { documents: [update] }, FEED)).body)).to.deep.equal([{ doc_ID: 'proxy-own', OK: true }]);
    });

    it('the owner is recorded on the stored document and appears in no public form', async () => {
      const docs = nsdlDocs(6).slice(3).map((doc, i) => asPublishedFor(doc, 'NSDL', `own-pub-${i}`));
      expect(results((await postJson(`${node.url}/publish`, { documents: docs }, FEED)).body).every((r) => r.OK)).to.equal(true);
      expect((await stored('own-pub-0'))[OWNER_FIELD]).to.equal(await recordedOwner(node, 'nsdl-feed'));
      const answers = [
        await fetch(`${node.url}/obtain?request_ID=own-pub-0&by_doc_ID=T`),
        await fetch(`${node.url}/obtain`),
        await fetch(`${node.url}/harvest/getrecord?request_ID=own-pub-0&by_doc_ID=T`),
        await fetch(`${node.url}/harvest/listrecords`),
        await fetch(`${node.url}/slice?identity=NSDL`),
        await fetch(`${node.url}/OAI-PMH?verb=GetRecord&identifier=own-pub-0&metadataPrefix=${JSON_PREFIX}`),
        await fetch(`${node.url}/OAI-PMH?verb=ListRecords&metadataPrefix=${JSON_PREFIX}`),
      ];
      for (const answer of answers) {
        const text = await answer.text();
        expect(answer.status, `${answer.url}: ${text.slice(0, 300)}`).to.equal(200);
        expect(text, answer.url).to.include('own-pub-0');
        expect(text, answer.url).not.to.include(OWNER_FIELD);
      }
    });

    it('the owner is left out of the LR-PGP canonical hash', async () => {
      const doc = await stored('own-pub-1');
      const { [OWNER_FIELD]: owner, ...without } = doc;
      expect(owner).to.equal(await recordedOwner(node, 'nsdl-feed'));
      expect(canonicalHash(doc)).to.equal(canonicalHash(without));
    });

    it('an owner arriving from another node is no authority here: inbound distribution drops it', async () => {
      const at = '2020-01-01T00:00:00.000000Z';
      const arriving = {
        ...asPublishedFor(nsdlDocs(7)[6] as Doc, 'bob', 'arrived-1'), _id: 'arrived-1', [OWNER_FIELD]: 'mallory',
        publish_node: 'elsewhere', publishing_node: 'elsewhere', create_timestamp: at, update_timestamp: at, node_timestamp: at,
      };
      await node.couch.use(node.names.incoming).insert(arriving as never);
      const doc = await waitFor('the inbound follower to store arrived-1', async () => stored('arrived-1'), 20000);
      expect(doc).not.to.have.property(OWNER_FIELD);
      // Without a recorded owner, the identity.submitter of the account decides (documents from other nodes).
      expect(results((await postJson(`${node.url}/delete`, { request_IDs: ['arrived-1'] }, MALLORY)).body)[0]?.OK).to.equal(false);
      expect(results((await postJson(`${node.url}/delete`, { request_IDs: ['arrived-1'] }, BOB)).body)[0]).to.deep.equal({ doc_ID: 'arrived-1', OK: true });
    });
  });

  describe('2. the owner replaces an unsigned document by publishing its doc_ID again', () => {
    it('replaces it in total; another account is refused', async () => {
      const [first, second] = nsdlDocs(9).slice(7) as [Doc, Doc];
      expect(results((await postJson(`${node.url}/publish`, { documents: [asPublishedFor(first, 'NSDL', 'unsigned-1')] }, FEED)).body)[0]?.OK).to.equal(true);
      expect(await stored('unsigned-1')).not.to.have.property('digital_signature');
      const update = asPublishedFor(second, 'NSDL', 'unsigned-1');
      const byOther = await postJson(`${node.url}/publish`, { documents: [update] }, BOB);
      expect(results(byOther.body)).to.deep.equal([{ doc_ID: 'unsigned-1', OK: false, error: 'rejected replacement: the original is unsigned: only its owner or a trusted super key may replace it' }]);
      const byOwner = await postJson(`${node.url}/publish`, { documents: [update] }, FEED);
      expect(results(byOwner.body)).to.deep.equal([{ doc_ID: 'unsigned-1', OK: true }]);
      const now = await stored('unsigned-1');
      expect(now.resource_locator).to.equal(second.resource_locator);
      expect(now.resource_data).to.equal(second.resource_data);
    });
  });

  describe('3. accounts hold several roles', () => {
    it('an account with publisher and network_admin publishes and distributes', async () => {
      const published = await postJson(`${node.url}/publish`, { documents: [asPublishedFor(nsdlDocs(10)[9] as Doc, 'ops', 'ops-1')] }, OPS);
      expect(published.status).to.equal(200);
      expect(results(published.body)).to.deep.equal([{ doc_ID: 'ops-1', OK: true }]);
      const distributed = await postJson(`${node.url}/distribute`, '', OPS);
      expect(distributed.status, JSON.stringify(distributed.body)).to.equal(200);
      expect(distributed.body).to.include({ OK: true });
    });

    it('valid credentials without the role are 403 with a JSON error; no or wrong credentials stay 401', async () => {
      const byAdmin = await postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, ADMIN);
      expect(byAdmin.status).to.equal(403);
      expect(byAdmin.body).to.deep.equal({ OK: false, error: 'account admin does not hold the role publisher (it holds: network_admin)' });
      expect(byAdmin.headers.get('www-authenticate')).to.equal(null);
      const byPublisher = await postJson(`${node.url}/distribute`, '', BOB);
      expect(byPublisher.status).to.equal(403);
      expect(byPublisher.body.OK).to.equal(false);
      expect((await postJson(`${node.url}/distribute`, '')).status).to.equal(401);
      expect((await postJson(`${node.url}/distribute`, '', { authorization: basicAuth('ops', 'wrong-password') })).status).to.equal(401);
      expect((await getJson(`${node.url}/incoming/`, { headers: BOB })).status).to.equal(403);
    });

    it('one gate for every route (issue 12): a network_admin is told which role it lacks on /delete, /swordpub and /metrics alike', async () => {
      const deleted = await postJson(`${node.url}/delete`, { request_IDs: ['x'] }, ADMIN);
      expect(deleted.status).to.equal(403);
      expect(deleted.body.error).to.equal('account admin does not hold the role publisher (it holds: network_admin)');
      // SWORD: a sword:error with 403, no WWW-Authenticate: the credentials were right, the role is missing.
      const sword = await fetch(`${node.url}/swordpub`, { method: 'POST', headers: { ...ADMIN, 'content-type': 'application/json' }, body: JSON.stringify(nsdlDocs(1)[0]) });
      const text = await sword.text();
      expect(sword.status, text).to.equal(403);
      expect(sword.headers.get('www-authenticate')).to.equal(null);
      expect(text).to.include('does not hold the role publisher');
      const metrics = await fetch(`${node.url}/metrics`, { headers: BOB });
      expect(metrics.status).to.equal(403);
      expect((await metrics.json() as { error: string }).error).to.match(/does not hold the role network_admin/);
      const anonymous = await fetch(`${node.url}/metrics`);
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('www-authenticate')).to.match(/^Basic /);
    });
  });
});
