/** Which credentials a service description's service_authz asks for (src/services/service-settings.ts). */
import { expect } from 'chai';
import { credentialSchemes } from '../../../src/services/service-settings.js';
import type { ServiceDescription } from '../../../src/domain/service-descriptions.js';

const describedBy = (authz: string[]): ServiceDescription => ({ service_auth: { service_authz: authz, service_key: false, service_https: false } }) as unknown as ServiceDescription;

describe('credentialSchemes', () => {
  it('the schemes listed; none for `none` or an empty list', () => {
    expect(credentialSchemes(describedBy(['basicauth']))).to.deep.equal({ basic: true, oauth: false });
    expect(credentialSchemes(describedBy(['oauth']))).to.deep.equal({ basic: false, oauth: true });
    expect(credentialSchemes(describedBy(['basicauth', 'oauth', 'ssh']))).to.deep.equal({ basic: true, oauth: true });
    expect(credentialSchemes(describedBy(['none']))).to.equal(false);
    expect(credentialSchemes(describedBy([]))).to.equal(false);
  });
  it('a list of schemes this node does not take still asks for credentials (it opened the service to anyone)', () => {
    expect(credentialSchemes(describedBy(['ssh']))).to.deep.equal({ basic: true, oauth: true });
  });
});
