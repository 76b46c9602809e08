/**
 * A service switched off in its description (`active: false`) answers 503 in its protocol's form,
 * without Retry-After (waiting will not switch it on) and without an error in the log for each request.
 */
import { expect } from 'chai';
import { startTestNode, type TestNode } from '../support/node.js';

describe('services switched off in their description', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ nodeConfig: { services: { obtain: { active: false }, harvest: { active: false }, oai_pmh: { active: false }, publish: { active: false } } } });
  });
  after(async () => node.stop());

  it('answer 503 saying so, with no Retry-After and no error logged', async () => {
    const logged = node.logs.length;
    for (const [url, init] of [['/obtain', {}], ['/harvest/listrecords', {}], ['/publish', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"documents":[]}' }]] as [string, RequestInit][]) {
      const response = await fetch(`${node.url}${url}`, init);
      expect(response.status, url).to.equal(503);
      expect(response.headers.get('retry-after'), url).to.equal(null);
      expect(((await response.json()) as { error: string }).error, url).to.match(/ service is not active on this node$/);
    }
    const oai = await fetch(`${node.url}/OAI-PMH?verb=Identify`);
    expect(oai.status).to.equal(503);
    expect(oai.headers.get('retry-after')).to.equal(null);
    expect(await oai.text()).to.match(/not active on this node/);
    const errors = node.logs.slice(logged).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors, errors.join('\n')).to.deep.equal([]);
  });
});
