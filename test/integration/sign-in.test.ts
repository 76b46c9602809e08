/**
 * What wrong passwords may cost (src/services/auth/sign-in-guard.ts): a name failing again and
 * again from one address is throttled with 429 and Retry-After, nobody else is; a name without an
 * account takes as long to refuse as a wrong password, so answer times do not reveal accounts.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, postJson, settled, type TestNode } from '../support/node.js';
import { nsdlDocs } from '../support/documents.js';
import { FAILURE_LIMIT } from '../../src/services/auth/sign-in-guard.js';
import { AccountRepository } from '../../src/storage/account-repository.js';
import { hashPassword } from '../../src/domain/password.js';

describe('failed sign-ins', function () {
  this.timeout(120000);
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
    await addAccount(node, 'alice', 'alice-password-1');
    await addAccount(node, 'bob', 'bob-password-1');
    await addAccount(node, 'carol', 'carol-password-1');
  });
  after(async () => node?.stop());

  const publish = (user: string, password: string): ReturnType<typeof postJson> => postJson(`${node.url}/publish`, { documents: nsdlDocs(1) }, { authorization: basicAuth(user, password) });

  it(`throttles a name after ${FAILURE_LIMIT} wrong passwords from one address (429, Retry-After), and no other name`, async () => {
    for (let i = 0; i < FAILURE_LIMIT; i += 1) expect((await publish('alice', `wrong-${i}`)).status).to.equal(401);
    const response = await fetch(`${node.url}/publish`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: basicAuth('alice', 'alice-password-1') }, body: JSON.stringify({ documents: nsdlDocs(1) }) });
    expect(response.status).to.equal(429);
    expect(Number(response.headers.get('retry-after'))).to.be.within(1, 60);
    expect(await response.json()).to.deep.include({ OK: false });
    const other = await publish('bob', 'bob-password-1');
    expect(other.status).to.equal(200);
    expect(other.body.OK).to.equal(true);
  });

  it('a name without an account is refused in about the time of a wrong password', async () => {
    const timed = async (user: string, password: string): Promise<number> => {
      const started = performance.now();
      expect((await publish(user, password)).status).to.equal(401);
      return performance.now() - started;
    };
    const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    await timed('nobody-warm', 'x'); // the stand-in hash is made at the first use
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      known.push(await timed('carol', `wrong-${i}`));
      unknown.push(await timed(`nobody-${i}`, `wrong-${i}`));
    }
    expect(median(unknown), `known ${known.map(Math.round).join(',')} ms, unknown ${unknown.map(Math.round).join(',')} ms`).to.be.above(median(known) * 0.5);
  });

  it('a changed password takes effect at once: the old one, accepted just before, is refused (no remembered check outlives it)', async () => {
    await addAccount(node, 'dave', 'dave-password-1');
    expect((await publish('dave', 'dave-password-1')).status).to.equal(200);
    // As `npm run account` changes a password: the account document updated (a new revision).
    const accounts = new AccountRepository(node.couch, node.names);
    const dave = await accounts.find('dave');
    if (!dave) throw new Error('dave was just created');
    await accounts.update({ ...dave, password: await hashPassword('dave-password-2') });
    await settled(node);
    expect((await publish('dave', 'dave-password-1')).status).to.equal(401);
    expect((await publish('dave', 'dave-password-2')).status).to.equal(200);
  });
});
