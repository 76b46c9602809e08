// A start without CONFIG applies the configuration the stored documents describe: it must be the
// one that wrote them, or the restart would change what the operator configured.
import { expect } from 'chai';
import { validateNodeConfig, type NodeConfig } from '../../../src/config/node-config.js';
import {
  buildNodeDescription, buildCommunityDescription, buildNetworkDescription, buildFilterDescription, buildConnections,
} from '../../../src/domain/node-documents.js';
import { SERVICE_CATALOGUE, buildServiceDescription } from '../../../src/domain/service-descriptions.js';
import { storedNodeConfig } from '../../../src/config/stored-config.js';

function stored(config: NodeConfig, publicUrl: string): Parameters<typeof storedNodeConfig>[0] {
  return {
    node: buildNodeDescription(config, 'n1'),
    community: buildCommunityDescription(config),
    network: buildNetworkDescription(config),
    filter: buildFilterDescription(config),
    connections: buildConnections(config, publicUrl),
    services: SERVICE_CATALOGUE.map((entry) => buildServiceDescription(entry, config, publicUrl, `s-${entry.key}`)),
  };
}

describe('the configuration stored documents describe (a start without CONFIG)', () => {
  it('is the configuration that wrote them: defaults, and a file that sets every section', () => {
    const defaults = validateNodeConfig({}, 'CONFIG');
    expect(storedNodeConfig(stored(defaults, 'http://a.example.org'))).to.deep.equal(defaults);
    const configured = validateNodeConfig({
      node: { node_name: 'Configured', sync_frequency: 30, gateway_node: true },
      community: { community_id: 'c1', social_community: false },
      network: { network_id: 'n1', network_name: 'Net' },
      policy: { accept_anonymous: false, deleted_data_policy: 'persistent', max_document_size: 2048, trusted_submitters: ['x'] },
      filter: { include_exclude: false, filter: [{ filter_key: 'keys', filter_value: 'math' }] },
      connections: [{ destination_node_url: 'http://b.example.org' }, { destination_node_url: 'http://c.example.org', gateway_connection: true, active: false }],
      services: {
        obtain: { service_data: { doc_limit: null, id_limit: 5 } },
        harvest: { service_name: 'My harvest', service_data: { doc_limit: 3, id_limit: 7, flow_control: false } },
        oai_pmh: { service_description: 'mine', service_auth: { service_authz: ['basicauth'] }, service_data: { id_limit: 9, schemalocation: 'http://schemas.example.org/lr.xsd' } },
        slice: { active: false },
        publish: { service_data: { msg_size_limit: 2000 } },
      },
    }, 'CONFIG');
    expect(storedNodeConfig(stored(configured, 'http://a.example.org'))).to.deep.equal(configured);
  });

  it('leaves out what the node derived from the start that wrote them, so the PUBLIC_URL of this start applies', () => {
    const config = validateNodeConfig({}, 'CONFIG');
    const derived = storedNodeConfig(stored(config, 'http://old.example.org'));
    expect(derived.services.oai_pmh.service_data).to.not.have.property('schemalocation');
    expect(derived.services.publish.service_data).to.not.have.property('max_document_size');
  });

  it('takes the defaults for what is not stored (a service this version adds), and refuses a stored value the node cannot use', () => {
    const config = validateNodeConfig({ node: { node_name: 'Kept' } }, 'CONFIG');
    const some = { ...stored(config, 'http://a.example.org'), services: [], community: undefined };
    expect(storedNodeConfig(some)).to.deep.equal(config);
    const edited = stored(config, 'http://a.example.org');
    edited.node.node_policy = { ...(edited.node.node_policy as object), max_document_size: 10 };
    expect(() => storedNodeConfig(edited)).to.throw(/^configuration error: the configuration stored in the node database \(kept when CONFIG is unset; CONFIG=FILE or CONFIG=defaults replaces it\) \/policy\/max_document_size: must be >= 1024/);
  });
});
