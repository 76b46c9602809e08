/** A streamed obtain result stays valid JSON when the store fails midway (the failure is reported). */
import { expect } from 'chai';
import { nodeOnOwnStore, readWhileStoreStops } from '../support/midway.js';

describe('GET /obtain streaming when CouchDB fails midway', () => {
  let own: Awaited<ReturnType<typeof nodeOnOwnStore>>;
  before(async () => { own = await nodeOnOwnStore({ services: { obtain: { service_data: { flow_control: false, doc_limit: null } } } }, 3000); });
  after(async () => own.stop());

  it('closes the JSON and reports the failure instead of truncating', async () => {
    const text = await readWhileStoreStops(`${own.node.url}/obtain`, () => own.store.stop());
    const body = JSON.parse(text) as { documents: unknown[]; OK?: boolean; error?: string };
    expect(body.OK).to.equal(false);
    expect(body.error).to.match(/^the result is incomplete after \d+ documents: CouchDB is unreachable/);
    expect(body.documents.length).to.be.greaterThan(0).and.lessThan(3000);
  });
});
