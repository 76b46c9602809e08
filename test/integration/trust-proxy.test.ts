/**
 * Behind a reverse proxy every client has the proxy's address. The sign-in throttle counts
 * failures per account name and address (services/auth/sign-in-guard.ts), so without TRUST_PROXY
 * ten wrong passwords a minute from anyone refused an account to everyone (a docs audit's
 * finding); with it, the client's address is X-Forwarded-For's last entry (the one the proxy
 * added), and only the guesser is refused.
 */
import { expect } from 'chai';
import { startTestNode, addAccount, basicAuth, type TestNode } from '../support/node.js';

const GUESSER = '203.0.113.9';
const OPERATOR = '198.51.100.7';

/** A request as a proxy forwards it: the client's own X-Forwarded-For (if any), then the address the proxy saw. */
const metrics = (node: TestNode, password: string, from: string, forged?: string): Promise<Response> =>
  fetch(`${node.url}/metrics`, { headers: { authorization: basicAuth('ops', password), 'x-forwarded-for': forged ? `${forged}, ${from}` : from } });

async function guessTenTimes(node: TestNode): Promise<void> {
  for (let i = 0; i < 10; i += 1) expect((await metrics(node, `wrong-${i}`, GUESSER, OPERATOR)).status).to.equal(401);
}

describe('the sign-in throttle behind a reverse proxy', function () {
  this.timeout(60000);

  it('with TRUST_PROXY=1 ten failures refuse the guesser only, whatever it writes in X-Forwarded-For', async () => {
    const node = await startTestNode({ env: { TRUST_PROXY: '1' } });
    try {
      await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
      await guessTenTimes(node);
      expect((await metrics(node, 'ops-password-1', GUESSER)).status).to.equal(429);
      const operator = await metrics(node, 'ops-password-1', OPERATOR);
      expect(operator.status, await operator.text()).to.equal(200);
    } finally {
      await node.stop();
    }
  });

  it('with TRUST_PROXY=0 (the default) the header is not believed, and the first one seen is logged', async () => {
    const node = await startTestNode();
    try {
      await addAccount(node, 'ops', 'ops-password-1', 'network_admin');
      await guessTenTimes(node);
      // Every client has the proxy's (here: the socket's) address: the operator is refused too.
      expect((await metrics(node, 'ops-password-1', OPERATOR)).status).to.equal(429);
      const warnings = node.logs.filter((line) => line.includes('TRUST_PROXY is 0'));
      expect(warnings).to.have.length(1);
    } finally {
      await node.stop();
    }
  });
});
