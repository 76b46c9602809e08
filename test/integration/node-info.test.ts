/** GET /status, /services, /description, /pubkey and the JSON error exit, against a real embedded store. */
import { expect } from 'chai';
import * as openpgp from 'openpgp';
import { startTestNode, getJson, currentStatus, type TestNode } from '../support/node.js';
import { SERVICE_CATALOGUE } from '../../src/domain/service-descriptions.js';

describe('node-level endpoints', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { node: { node_name: 'Test node', node_admin_identity: 'ops@example.org' }, community: { community_name: 'Test community' } } });
  });
  after(async () => node.stop());

  describe('GET /', () => {
    it('names the node and links its node-level endpoints and active services, each of which answers', async () => {
      const { status, body, headers } = await getJson(`${node.url}/`);
      expect(status).to.equal(200);
      expect(headers.get('content-type')).to.match(/application\/json; charset=utf-8/);
      expect(body).to.include({ OK: true, node_id: node.bootstrap.nodeId, node_name: 'Test node' });
      expect(body.node_endpoints).to.deep.equal(Object.fromEntries(['description', 'services', 'status', 'policy', 'pubkey', 'destination', 'auth'].map((name) => [name, `${node.publicUrl}/${name}`])));
      const services = (await getJson(`${node.url}/services`)).body.services as { service_name: string; service_endpoint: string; active: boolean }[];
      expect(body.service_endpoints).to.deep.equal(Object.fromEntries(services.filter((s) => s.active).map((s) => [s.service_name, s.service_endpoint])));
      expect(body.service_endpoints).to.include({ 'Basic Publish': `${node.publicUrl}/publish`, 'OAI-PMH Harvest': `${node.publicUrl}/OAI-PMH` });
      for (const name of ['description', 'services', 'status', 'pubkey', 'destination']) {
        expect((await fetch(`${node.url}/${name}`)).status, name).to.equal(200);
      }
    });
  });

  describe('GET /status', () => {
    it('reports the node, its live document count and its times', async () => {
      await currentStatus(node.url);
      const { status, body, headers } = await getJson(`${node.url}/status`);
      expect(status).to.equal(200);
      expect(headers.get('content-type')).to.match(/application\/json; charset=utf-8/);
      expect(body).to.include({ OK: true, node_id: node.bootstrap.nodeId, node_name: 'Test node', active: true, doc_count: 0, earliestDatestamp: null });
      expect(Date.parse(String(body.install_time))).to.be.a('number').and.not.NaN;
      expect(Date.parse(String(body.start_time))).to.not.be.NaN;
    });

    it('counts live resource_data documents only and reports the earliest node_timestamp', async () => {
      const db = node.couch.use(node.names.resourceData);
      await db.bulk({ docs: [
        { _id: 'a', doc_type: 'resource_data', node_timestamp: '2024-01-02T00:00:00.000000Z' },
        { _id: 'b', doc_type: 'resource_data', node_timestamp: '2023-05-06T07:08:09.000000Z' },
        { _id: 'c', doc_type: 'tombstone', node_timestamp: '2020-01-01T00:00:00.000000Z' },
        { _id: 'd', doc_type: 'resource_data', node_deleted: true, node_timestamp: '2019-01-01T00:00:00.000000Z' },
      ] });
      const body = await currentStatus(node.url);
      expect(body.doc_count).to.equal(2);
      expect(body.earliestDatestamp).to.equal('2023-05-06T07:08:09.000000Z');
    });
  });

  describe('GET /services', () => {
    it('returns one service description per spec service, in the spec\'s common shape', async () => {
      const { status, body } = await getJson(`${node.url}/services`);
      expect(status).to.equal(200);
      // The original node's fields beside the list (its services.py).
      expect(body).to.include({ OK: true, node_id: node.bootstrap.nodeId, node_name: 'Test node', active: true });
      expect(Date.now() - Date.parse(String(body.timestamp))).to.be.within(0, 60000);
      const services = body.services as Record<string, unknown>[];
      expect(services.map((s) => s.service_name).sort()).to.deep.equal(SERVICE_CATALOGUE.map((s) => s.service_name).sort());
      const expectedVersions: Record<string, string> = { 'Basic Obtain': '0.21.0', 'Basic Publish': '0.23.0', 'SWORD APP Publish V1.3': '0.10.0', 'Basic Delete': '0.10.0', 'Resource Data Distribution': '0.23.0' };
      const ids = new Set<string>();
      for (const service of services) {
        expect(service).to.include({ doc_type: 'service_description', doc_version: '0.20.0', doc_scope: 'node', active: true });
        expect(service.service_type).to.be.oneOf(['access', 'publish', 'delete', 'distribute']);
        expect(service.service_id).to.be.a('string').with.length.greaterThan(8);
        ids.add(String(service.service_id));
        expect(String(service.service_endpoint).startsWith(node.publicUrl)).to.equal(true);
        expect(service.service_auth).to.have.all.keys('service_authz', 'service_key', 'service_https');
        const name = String(service.service_name);
        if (expectedVersions[name]) expect(service.service_version).to.equal(expectedVersions[name]);
        if (name === 'Resource Data Distribution') expect(service).to.not.have.property('service_data');
        else expect(service.service_data).to.be.an('object');
        expect(service).to.not.have.any.keys('_id', '_rev');
      }
      expect(ids.size).to.equal(services.length);
      const publish = services.find((s) => s.service_name === 'Basic Publish') as { service_data: Record<string, unknown> };
      // Every size limit the node enforces is stated (spec "Limits"): per request, and per document from the node policy.
      expect(publish.service_data).to.have.all.keys('doc_limit', 'msg_size_limit', 'max_document_size', 'id_length_limit');
      expect(publish.service_data.id_length_limit).to.equal(8192);
      const obtain = services.find((s) => s.service_name === 'Basic Obtain') as { service_data: Record<string, unknown> };
      expect(obtain.service_data).to.include.keys('doc_limit', 'id_limit', 'spec_kv_only', 'flow_control');
      const remove = services.find((s) => s.service_name === 'Basic Delete') as { service_data: Record<string, unknown> };
      expect(remove.service_data.delete_action).to.be.oneOf(['ignore', 'mark', 'delete', 'purge']);
      const sword = services.find((s) => s.service_name === 'SWORD APP Publish V1.3') as { service_data: Record<string, unknown> };
      expect(sword.service_data.version).to.equal('1.3');
    });
  });

  describe('GET /description', () => {
    it('merges the node, community, network and policy descriptions', async () => {
      const { status, body } = await getJson(`${node.url}/description`);
      expect(status).to.equal(200);
      expect(body).to.include({ OK: true, node_id: node.bootstrap.nodeId, node_name: 'Test node', node_admin_identity: 'ops@example.org', community_name: 'Test community', social_community: true, gateway_node: false });
      expect(body.network_id).to.be.a('string');
      expect(body.network_name).to.be.a('string');
      expect((body.node_policy as Record<string, unknown>).deleted_data_policy).to.be.oneOf(['no', 'persistent', 'transient']);
      expect(body.network_policy).to.include({ doc_type: 'policy_description' });
      expect(body.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });
  });

  describe('GET /policy', () => {
    it('gives the network policy with the node\'s and the network\'s names, as the original node did', async () => {
      const [{ status, body }, description] = await Promise.all([getJson(`${node.url}/policy`), getJson(`${node.url}/description`)]);
      expect(status).to.equal(200);
      expect(body).to.include({ OK: true, node_id: node.bootstrap.nodeId, node_name: 'Test node', network_name: description.body.network_name });
      const policy = description.body.network_policy as Record<string, unknown>;
      for (const [key, value] of Object.entries(policy)) {
        if (['doc_type', 'doc_version', 'doc_scope', 'active'].includes(key)) expect(body, key).to.not.have.property(key);
        else expect(body[key], key).to.deep.equal(value);
      }
      expect(body).to.not.have.any.keys('_id', '_rev');
    });
  });

  describe('GET /pubkey', () => {
    it('serves the node\'s OpenPGP public key in ASCII armour', async () => {
      const response = await fetch(`${node.url}/pubkey`);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/plain/);
      const armored = await response.text();
      expect(armored).to.match(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
      const key = await openpgp.readKey({ armoredKey: armored });
      expect(key.isPrivate()).to.equal(false);
    });
  });

  describe('error exit', () => {
    it('GET /no-such-thing → 404 JSON', async () => {
      const { status, body } = await getJson(`${node.url}/no-such-thing`);
      expect(status).to.equal(404);
      expect(body).to.deep.equal({ OK: false, error: 'no such endpoint: GET /no-such-thing' });
    });

    it('DELETE /status → 405 JSON naming the allowed methods', async () => {
      const { status, body, headers } = await getJson(`${node.url}/status`, { method: 'DELETE' });
      expect(status).to.equal(405);
      expect(body.OK).to.equal(false);
      expect(headers.get('allow')).to.contain('GET');
    });

    it('never logs credentials', async () => {
      await fetch(`${node.url}/status`, { headers: { authorization: 'Basic c2VjcmV0dXNlcjpzM2NyZXQtcGFzc3dvcmQ=' } });
      const logs = node.logs.join('');
      expect(logs).to.contain('"path":"/status"');
      expect(logs).to.not.contain('c2VjcmV0dXNlcjpzM2NyZXQtcGFzc3dvcmQ=');
      expect(logs).to.not.contain('s3cret-password');
    });
  });
});
