// CONFIG's service_data: the keys a file gives are taken, and each key it leaves out keeps its default.
import fs from 'node:fs';
import { expect } from 'chai';
import { validateNodeConfig } from '../../../src/config/node-config.js';

type Doc = Record<string, unknown>;
const fixture = (name: string): Doc => JSON.parse(fs.readFileSync(new URL(`../../fixtures/node-config/${name}`, import.meta.url), 'utf8')) as Doc;

describe('CONFIG services.*.service_data', () => {
  it('merges what a file gives with the defaults (a partial service_data dropped every other limit)', () => {
    const config = validateNodeConfig({ services: { publish: { service_data: { doc_limit: 5 } }, harvest: { service_data: { granularity: 'YYYY-MM-DD' } } } }, 'CONFIG');
    expect(config.services.publish.service_data).to.deep.equal({ doc_limit: 5, msg_size_limit: 10485760 });
    expect(config.services.harvest.service_data).to.include({ granularity: 'YYYY-MM-DD', doc_limit: 100, id_limit: 100, flow_control: true });
    expect(config.services.harvest.service_data?.metadataformats).to.deep.equal([{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }]);
  });

  it('gives each node its own copy of a default (no shared object between two configurations)', () => {
    const first = validateNodeConfig({}, 'CONFIG');
    (first.services.harvest.service_data?.metadataformats as unknown[]).push('changed');
    expect(validateNodeConfig({}, 'CONFIG').services.harvest.service_data?.metadataformats).to.have.length(1);
  });

  // obtain's limits too: a file that gave only doc_limit lost id_limit, and /obtain?ids_only=T
  // answered every id in one page. Absent from a description they mean "return all" (spec
  // "Service_data by service"): a file says so with null, and the description leaves them out.
  it('obtain\'s limits too, and null leaves one out of the description (the spec\'s "return all")', () => {
    expect(validateNodeConfig({ services: { obtain: { service_data: { doc_limit: 10 } } } }, 'CONFIG').services.obtain.service_data).to.deep.equal({ doc_limit: 10, id_limit: 1000, spec_kv_only: false, flow_control: true , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
    expect(validateNodeConfig({ services: { obtain: { service_data: { flow_control: false } } } }, 'CONFIG').services.obtain.service_data).to.deep.equal({ doc_limit: 100, id_limit: 1000, flow_control: false, spec_kv_only: false , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
    expect(validateNodeConfig({ services: { obtain: { service_data: { doc_limit: null, id_limit: null } } } }, 'CONFIG').services.obtain.service_data).to.deep.equal({ spec_kv_only: false, flow_control: true , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
    expect(validateNodeConfig({}, 'CONFIG').services.obtain.service_data).to.deep.equal({ doc_limit: 100, id_limit: 1000, spec_kv_only: false, flow_control: true , msg_size_limit: 1048576, request_id_limit: 10000, id_length_limit: 8192 });
  });

  it('null is no limit for obtain only, and a limit of another type is still refused', () => {
    expect(() => validateNodeConfig({ services: { slice: { service_data: { id_limit: null } } } }, 'CONFIG')).to.throw('configuration error: CONFIG/services/slice/service_data/id_limit: must be integer, got null');
    expect(() => validateNodeConfig({ services: { obtain: { service_data: { id_limit: 'all' } } } }, 'CONFIG'))
      .to.throw('configuration error: CONFIG/services/obtain/service_data/id_limit: must be integer, got "all" (or null to state no limit, which the spec reads as "return all")');
  });

  it('still checks the type of a key it gives', () => {
    expect(() => validateNodeConfig({ services: { publish: { service_data: { doc_limit: 'many' } } } }, 'CONFIG')).to.throw(/doc_limit/);
  });
});

describe('CONFIG errors name what is wrong', () => {
  it('an unknown key by its name, a value outside a list with the values allowed', () => {
    expect(() => validateNodeConfig({ node: { node_nmae: 'x' } }, 'CONFIG')).to.throw('configuration error: CONFIG/node: must NOT have additional properties: "node_nmae" is not a setting here');
    expect(() => validateNodeConfig({ policy: { deleted_data_policy: 'sometimes' } }, 'CONFIG')).to.throw('configuration error: CONFIG/policy/deleted_data_policy: must be equal to one of the allowed values: "no", "persistent", "transient", got "sometimes"');
  });

  // Identify's adminEmail is the address in node_admin_identity: one naming none made every
  // Identify response invalid against OAI-PMH.xsd (an audit's finding).
  it('an administrator identity that names no e-mail address; a bare address and the name-addr form are taken', () => {
    expect(() => validateNodeConfig({ node: { node_admin_identity: 'Jane Admin <jane at example dot org>' } }, 'CONFIG')).to.throw('configuration error: CONFIG/node/node_admin_identity: must name the administrator\'s e-mail address, as `admin@example.org` or `Jane Admin <admin@example.org>` (OAI-PMH Identify\'s adminEmail is taken from it), got "Jane Admin <jane at example dot org>"');
    expect(() => validateNodeConfig({ node: { node_admin_identity: 'the admins' } }, 'CONFIG')).to.throw(/node_admin_identity: must name/);
    expect(validateNodeConfig({ node: { node_admin_identity: 'Jane Admin <jane@example.org>' } }, 'CONFIG').node.node_admin_identity).to.equal('Jane Admin <jane@example.org>');
    expect(validateNodeConfig({}, 'CONFIG').node.node_admin_identity).to.equal('admin@example.org');
  });
});

// Each service_data is closed and typed (spec "Service_data by service"): a key the service does
// not know, or a value of the wrong type or range, was accepted, advertised in /services as it
// was written and ignored by the node, which went on with its own default.
describe('CONFIG service_data is checked key by key', () => {
  const refused: [Doc, string][] = [
    [{ obtain: { service_data: { doc_limt: 5 } } }, 'CONFIG/services/obtain/service_data: must NOT have additional properties: "doc_limt" is not a setting here (known: doc_limit, id_limit, spec_kv_only, flow_control, msg_size_limit, request_id_limit, id_length_limit)'],
    [{ slice: { service_data: { doc_limit: '100' } } }, 'CONFIG/services/slice/service_data/doc_limit: must be integer, got "100"'],
    [{ harvest: { service_data: { doc_limit: -1 } } }, 'CONFIG/services/harvest/service_data/doc_limit: must be >= 1, got -1'],
    [{ harvest: { service_data: { doc_limit: 5000 } } }, 'CONFIG/services/harvest/service_data/doc_limit: must be <= 1000, got 5000'],
    [{ oai_pmh: { service_data: { id_limit: 5000 } } }, 'CONFIG/services/oai_pmh/service_data/id_limit: must be <= 1000, got 5000'],
    [{ oai_pmh: { service_data: { flow_control: 'no' } } }, 'CONFIG/services/oai_pmh/service_data/flow_control: must be true, got "no"'],
    [{ oai_pmh: { service_data: { flow_control: false } } }, 'CONFIG/services/oai_pmh/service_data/flow_control: must be true, got false'],
    [{ publish: { service_data: { doc_limit: 0 } } }, 'CONFIG/services/publish/service_data/doc_limit: must be >= 1, got 0'],
    [{ publish: { service_data: { max_document_size: 10 } } }, 'CONFIG/services/publish/service_data: must NOT have additional properties: "max_document_size" is not a setting here'],
    [{ delete: { service_data: { doc_limit: 2.5 } } }, 'CONFIG/services/delete/service_data/doc_limit: must be integer, got 2.5'],
    [{ sword: { service_data: { version: '2.0' } } }, 'CONFIG/services/sword/service_data/version: must be "1.3", got "2.0"'],
    [{ distribute: { service_data: { doc_limit: 5 } } }, 'CONFIG/services/distribute/service_data: must NOT have additional properties: "doc_limit" is not a setting here (the spec gives Distribution no service_data)'],
    [{ harvest: { service_data: { setSpec: 'math' } } }, 'CONFIG/services/harvest/service_data/setSpec: must be null, got "math"'],
    [{ harvest: { service_data: { earliestDatestamp: '2024-02-30' } } }, 'CONFIG/services/harvest/service_data/earliestDatestamp: must be a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ'],
    [{ harvest: { service_data: { metadataformats: [{ metadataFormat: { metadataPrefix: 'x', prefix: 'x' } }] } } }, 'CONFIG/services/harvest/service_data/metadataformats/0/metadataFormat: must NOT have additional properties: "prefix" is not a setting here'],
    [{ oai_pmh: { service_data: { schemalocation: 'http://a b/OAI-PMH-LR.xsd' } } }, 'CONFIG/services/oai_pmh/service_data/schemalocation: must be an absolute http(s) URL, got "http://a b/OAI-PMH-LR.xsd"'],
  ];
  for (const [services, message] of refused) {
    it(`refuses ${JSON.stringify(services)}`, () => {
      expect(() => validateNodeConfig({ services }, 'CONFIG')).to.throw(`configuration error: ${message}`);
    });
  }

  // With flow_control false Basic Harvest answers each list whole: page limits would limit nothing.
  it('Basic Harvest and Slice without flow control: the default limits are left out of their descriptions, limits CONFIG states are refused', () => {
    expect(validateNodeConfig({ services: { slice: { service_data: { flow_control: false } } } }, 'CONFIG').services.slice.service_data).to.not.have.any.keys('doc_limit', 'id_limit');
    expect(() => validateNodeConfig({ services: { slice: { service_data: { flow_control: false, doc_limit: 5 } } } }, 'CONFIG')).to.throw(/CONFIG\/services\/slice\/service_data\/doc_limit: limits nothing with flow_control false/);
    const data = validateNodeConfig({ services: { harvest: { service_data: { flow_control: false } } } }, 'CONFIG').services.harvest.service_data;
    expect(data).to.include({ flow_control: false });
    expect(data).to.not.have.any.keys('doc_limit', 'id_limit');
    expect(() => validateNodeConfig({ services: { harvest: { service_data: { flow_control: false, id_limit: 5 } } } }, 'CONFIG')).to.throw('configuration error: CONFIG/services/harvest/service_data/id_limit: limits nothing with flow_control false: every list is answered whole; leave it out, or set flow_control true to page by it');
    expect(validateNodeConfig({ services: { harvest: { service_data: { flow_control: true } } } }, 'CONFIG').services.harvest.service_data).to.include({ doc_limit: 100, id_limit: 100 });
  });

  it('takes every key the services use', () => {
    const services = {
      publish: { service_data: { doc_limit: 5, msg_size_limit: 20000 } },
      sword: { service_data: { version: '1.3', collection_policy: 'Only JSON resource data description documents' } },
      delete: { service_data: { delete_action: 'purge', doc_limit: 3, msg_size_limit: 1000 } },
      obtain: { service_data: { doc_limit: 0, id_limit: 0, spec_kv_only: true, flow_control: false } },
      harvest: { service_data: { granularity: 'YYYY-MM-DD', doc_limit: 1000, id_limit: 5, flow_control: true, metadataformats: [], setSpec: null, earliestDatestamp: '2024-02-29' } },
      oai_pmh: { service_data: { earliestDatestamp: '2024-02-29T23:59:59Z', schemalocation: 'https://example.org/OAI-PMH-LR.xsd', metadataformats: [{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0', schema: 'https://example.org/lr.xsd', metadataNamespace: 'urn:x' } }] } },
      slice: { service_data: { doc_limit: 1, id_limit: 1, flow_control: true } },
    };
    const config = validateNodeConfig({ services }, 'CONFIG');
    for (const [key, { service_data }] of Object.entries(services)) expect(config.services[key as keyof typeof services].service_data, key).to.deep.include(service_data);
  });

  // The node, community, network, service, filter and connectivity documents a real node held
  // (test/fixtures/node-config, a copy of shared/samples/node-config), written as a CONFIG.
  it('takes the documents of a real node (the shipped samples) as a CONFIG', () => {
    const SERVICES: Record<string, string> = { 'Basic Harvest': 'harvest', 'Basic Obtain': 'obtain', 'OAI-PMH Harvest': 'oai_pmh', Slice: 'slice', 'Basic Publish': 'publish', 'SWORD APP Publish V1.3': 'sword', 'Resource Data Distribution': 'distribute' };
    const docs = (fixture('node-db-dump.json').docs as Doc[]);
    const services = Object.fromEntries(docs.filter((doc) => SERVICES[String(doc.service_name)]).map((doc) => [SERVICES[String(doc.service_name)], {
      active: doc.active, service_name: doc.service_name, service_auth: doc.service_auth, ...(doc.service_data ? { service_data: doc.service_data } : {}),
    }]));
    expect(Object.keys(services)).to.have.length(7);
    const node = docs.find((doc) => doc._id === 'node_description') as Doc;
    const community = (fixture('community-db-dump.json').docs as Doc[])[0] as Doc;
    const network = (fixture('network-db-dump.json').docs as Doc[])[0] as Doc;
    const filter = fixture('filter-description-example.json');
    const connection = fixture('connection-description-example.json');
    const pick = (doc: Doc, keys: string[]): Doc => Object.fromEntries(keys.filter((key) => key in doc).map((key) => [key, doc[key]]));
    const config = validateNodeConfig({
      node: pick(node, ['node_name', 'node_description', 'node_admin_identity', 'gateway_node', 'open_connect_source', 'open_connect_dest']),
      community: pick(community, ['community_id', 'community_name', 'community_description', 'social_community', 'community_admin_identity']),
      network: pick(network, ['network_id', 'network_name', 'network_description', 'network_admin_identity']),
      policy: node.node_policy,
      filter: pick(filter, ['filter_name', 'include_exclude', 'custom_filter', 'active', 'filter']),
      connections: [pick(connection, ['destination_node_url', 'gateway_connection', 'active'])],
      services,
    }, 'CONFIG');
    expect(config.services.oai_pmh.service_data).to.include({ schemalocation: 'http://www.learningregistry.org/documents/downloads/OAI-PMH-LR.xsd', id_limit: 100 });
    expect(config.services.sword.service_data).to.deep.equal({ version: '1.3' });
  });
});

// replacement.ts compares trusted_super_keys with a signer's fingerprint (white space removed, case
// ignored), and distribution fetches `${destination_node_url}/destination`: a value that can never
// be either was accepted, and trusted no key or reached no node.
describe('CONFIG fingerprints and node URLs', () => {
  const V4 = 'A1B2C3D4E5F60718293A4B5C6D7E8F9012345678';
  it('takes v4 and v6 fingerprints, grouped with spaces or not, in either case', () => {
    const keys = [V4, V4.toLowerCase().replace(/(.{4})/g, '$1 ').trim(), 'ab'.repeat(32)];
    expect(validateNodeConfig({ policy: { trusted_super_keys: keys } }, 'CONFIG').policy.trusted_super_keys).to.deep.equal(keys);
  });

  for (const key of ['not-a-fingerprint', V4.slice(24), `0x${V4}`, `${V4}00`]) {
    it(`refuses the super key ${JSON.stringify(key)}`, () => {
      expect(() => validateNodeConfig({ policy: { trusted_super_keys: [V4, key] } }, 'CONFIG'))
        .to.throw(`configuration error: CONFIG/policy/trusted_super_keys/1: must be an OpenPGP fingerprint: 40 hex digits (v4 key) or 64 (v6), spaces allowed, got ${JSON.stringify(key)}`);
    });
  }

  it('takes http(s) node URLs, with a port and a path', () => {
    const connections = ['http://node2.example.org', 'https://node2.example.org:8443/lr/', 'http://127.0.0.1:9', 'http://[::1]:5984'].map((url) => ({ destination_node_url: url }));
    expect(validateNodeConfig({ connections }, 'CONFIG').connections.map((c) => c.destination_node_url)).to.deep.equal(connections.map((c) => c.destination_node_url));
  });

  for (const url of ['http://a b', 'http://', 'ftp://node2.example.org', 'http://user:secret@node2.example.org', 'http://node2.example.org/?x=1', 'http://node2.example.org/#top', 'node2.example.org']) {
    it(`refuses the destination ${JSON.stringify(url)}`, () => {
      // The line may end up in a log: a password in the URL is not repeated.
      expect(() => validateNodeConfig({ connections: [{ destination_node_url: url }] }, 'CONFIG'))
        .to.throw(`configuration error: CONFIG/connections/0/destination_node_url: must be a node URL http(s)://host[:port][/path], without credentials, query or fragment, got ${JSON.stringify(url.replace('user:secret@', '***@'))}`);
    });
  }
});

// The filter function (design-docs/.../live_for_destination.js) takes a pattern it cannot compile
// for one that matches nothing: every publish was then "rejected by filter", and nothing said why.
describe('CONFIG filter patterns', () => {
  const withRules = (filter: Doc[], more: Doc = {}): Doc => ({ filter: { include_exclude: true, filter, ...more } });

  it('are compiled at start-up, as the filter compiles them, and one that does not compile is named', () => {
    expect(() => validateNodeConfig(withRules([{ filter_key: 'keys', filter_value: '(' }]), 'CONFIG'))
      .to.throw('configuration error: CONFIG/filter/filter/0/filter_value: must be a regular expression the filter can compile, got "(": Invalid regular expression: /(/: Unterminated group');
    expect(() => validateNodeConfig(withRules([{ filter_key: 'keys', filter_value: 'x' }, { filter_key: 'identity.[', filter_value: 'x' }]), 'CONFIG'))
      .to.throw('configuration error: CONFIG/filter/filter/1/filter_key: must be a regular expression the filter can compile, got "identity.[": Invalid regular expression: /^(?:identity.[)$/: Unterminated character class');
  });

  it('even of a filter that is off (it may be switched on in the node database)', () => {
    expect(() => validateNodeConfig(withRules([{ filter_key: 'keys', filter_value: '[' }], { active: false }), 'CONFIG')).to.throw('CONFIG/filter/filter/0/filter_value');
  });

  it('a key pattern is compiled within ^(?:…)$, as the filter does: what compiles only there is taken', () => {
    const rules = [{ filter_key: 'a)|(b', filter_value: 'Filter Me In' }, { filter_key: 'active' }];
    expect(validateNodeConfig(withRules(rules), 'CONFIG').filter?.filter).to.deep.equal(rules);
  });
});
