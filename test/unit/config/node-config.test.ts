// CONFIG's service_data: the keys a file gives are taken, and each key it leaves out keeps its default.
import { expect } from 'chai';
import { validateNodeConfig } from '../../../src/config/node-config.js';

describe('CONFIG services.*.service_data', () => {
  it('merges what a file gives with the defaults (a partial service_data dropped every other limit)', () => {
    const config = validateNodeConfig({ services: { publish: { service_data: { doc_limit: 5 } }, harvest: { service_data: { granularity: 'YYYY-MM-DD' } } } }, 'CONFIG');
    expect(config.services.publish.service_data).to.deep.equal({ doc_limit: 5, msg_size_limit: 10485760 });
    expect(config.services.harvest.service_data).to.include({ granularity: 'YYYY-MM-DD', doc_limit: 100, id_limit: 1000, flow_control: true });
    expect(config.services.harvest.service_data?.metadataformats).to.deep.equal([{ metadataFormat: { metadataPrefix: 'LR_JSON_0.10.0' } }]);
  });

  it('gives each node its own copy of a default (no shared object between two configurations)', () => {
    const first = validateNodeConfig({}, 'CONFIG');
    (first.services.harvest.service_data?.metadataformats as unknown[]).push('changed');
    expect(validateNodeConfig({}, 'CONFIG').services.harvest.service_data?.metadataformats).to.have.length(1);
  });

  it('but for obtain\'s limits, whose absence means "return all" (spec)', () => {
    expect(validateNodeConfig({ services: { obtain: { service_data: { flow_control: false } } } }, 'CONFIG').services.obtain.service_data).to.deep.equal({ flow_control: false, spec_kv_only: false });
    expect(validateNodeConfig({}, 'CONFIG').services.obtain.service_data).to.deep.equal({ doc_limit: 100, id_limit: 1000, spec_kv_only: false, flow_control: true });
  });

  it('still checks the type of a key it gives', () => {
    expect(() => validateNodeConfig({ services: { publish: { service_data: { doc_limit: 'many' } } } }, 'CONFIG')).to.throw(/doc_limit/);
  });
});

describe('CONFIG errors name what is wrong', () => {
  it('an unknown key by its name, a value outside a list with the values allowed', () => {
    expect(() => validateNodeConfig({ node: { node_nmae: 'x' } }, 'CONFIG')).to.throw('configuration error: CONFIG/node: must NOT have additional properties: "node_nmae" is not a setting here');
    expect(() => validateNodeConfig({ policy: { deleted_data_policy: 'sometimes' } }, 'CONFIG')).to.throw('configuration error: CONFIG/policy/deleted_data_policy: must be equal to one of the allowed values: "no", "persistent", "transient"');
  });
});
