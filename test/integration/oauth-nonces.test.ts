/**
 * The OAuth 1.0 nonce records (src/storage/oauth-nonces.ts) on the suite's store: a nonce is taken
 * once per credentials and timestamp, by one of several processes racing for it; an account's
 * records are at most twelve, one per minute of timestamps, each reused once its minute is past
 * the accepted skew; a minute holds at most 500 nonces; removing the account deletes them.
 */
import { expect } from 'chai';
import { addAccount, startTestNode, type TestNode } from '../support/node.js';
import { OAuthNonces } from '../../src/storage/oauth-nonces.js';
import { AppError } from '../../src/errors/app-error.js';
import { AccountRepository } from '../../src/storage/account-repository.js';

const T0 = 1_800_000_000; // a whole minute (30,000,000 × 60)

describe('OAuth 1.0 nonce records', function () {
  this.timeout(120000);
  let node: TestNode;
  let nonces: OAuthNonces;
  before(async () => {
    node = await startTestNode();
    nonces = new OAuthNonces(node.couch, node.names);
  });
  after(async () => node.stop());

  const recordsOf = async (account: string): Promise<{ id: string; doc: Record<string, unknown> }[]> => {
    const rows = (await node.couch.use(node.names.accounts).list({ startkey: `oauth1_nonces:${account}`, endkey: `oauth1_nonces:${account}\ufff0`, include_docs: true })).rows;
    return rows.map((row) => ({ id: row.id, doc: row.doc as unknown as Record<string, unknown> }));
  };

  it('takes a nonce once per token and timestamp', async () => {
    expect(await nonces.claim('alice', 'tok', T0, 'n1')).to.equal(true);
    expect(await nonces.claim('alice', 'tok', T0, 'n1')).to.equal(false);
    expect(await nonces.claim('alice', 'tok', T0 + 1, 'n1'), 'another timestamp').to.equal(true);
    expect(await nonces.claim('alice', 'other', T0, 'n1'), 'another token').to.equal(true);
    expect(await nonces.claim('bob', 'tok', T0, 'n1'), 'another account').to.equal(true);
  });

  it('of several processes claiming one nonce at once, exactly one takes it', async () => {
    const processes = [nonces, new OAuthNonces(node.couch, node.names), new OAuthNonces(node.couch, node.names)];
    const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => (processes[i % 3] as OAuthNonces).claim('racer', 'tok', T0, 'same')));
    expect(answers.filter(Boolean)).to.have.length(1);
  });

  it('keeps twelve records per account, one per minute, reusing each once its minute is past the skew', async () => {
    for (let minute = 0; minute < 30; minute += 1) expect(await nonces.claim('carol', 'tok', T0 + 60 * minute + 5, `m${minute}`)).to.equal(true);
    const records = await recordsOf('carol');
    expect(records).to.have.length(12);
    for (const { doc } of records) expect(Object.keys(doc.seen as object)).to.have.length(1);
    // Minute 29 reused minute 17's record: a stamp of minute 17 (long past the skew) is refused
    // rather than taken again, and minute 29's nonce is still known.
    expect(await nonces.claim('carol', 'tok', T0 + 60 * 17 + 5, 'm17-again')).to.equal(false);
    expect(await nonces.claim('carol', 'tok', T0 + 60 * 29 + 5, 'm29')).to.equal(false);
    expect(await nonces.claim('carol', 'tok', T0 + 60 * 29 + 6, 'm29')).to.equal(true);
  });

  it('takes at most 500 nonces of one account stamped within one minute (429 beyond)', async () => {
    for (let i = 0; i < 500; i += 1) await nonces.claim('dave', 'tok', T0 + (i % 60), `n${i}`);
    const refusal = await nonces.claim('dave', 'tok', T0 + 30, 'one-more').catch((error: unknown) => error);
    expect(refusal).to.be.instanceOf(AppError);
    expect((refusal as AppError).status).to.equal(429);
    expect(await nonces.claim('dave', 'tok', T0 + 60, 'next-minute')).to.equal(true);
  });

  it('removing an account deletes its records', async () => {
    await addAccount(node, 'erin', 'correct horse battery staple');
    expect(await nonces.claim('erin', 'tok', T0, 'n1')).to.equal(true);
    expect(await nonces.claim('erin', 'tok', T0 + 60, 'n1')).to.equal(true);
    const accounts = new AccountRepository(node.couch, node.names);
    await accounts.remove((await accounts.find('erin'))!);
    expect(await recordsOf('erin')).to.deep.equal([]);
    expect(await recordsOf('carol')).to.have.length(12);
  });
});
