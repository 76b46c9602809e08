/**
 * The node's long-lived loops (the index warmer, the follower of the incoming database) wait
 * between polls on a signal that lives as long as the node. Each wait must take its abort
 * listener back when it ends: a wait that left it there added one closure per poll for the life of
 * the process (the index warmer polls four times a second: 2,700 listeners and a
 * MaxListenersExceededWarning after ten minutes of a harvest over 1,000,000 documents).
 * Both loops run against the real embedded store.
 */
import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import pino from 'pino';
import { startBareStore, type BareStore } from '../support/bare-store.js';
import { connectCouch } from '../../src/storage/couch.js';
import { databaseNames } from '../../src/storage/databases.js';
import { IndexWarmer } from '../../src/storage/index-warmer.js';
import { IncomingRepository } from '../../src/storage/distribution-incoming.js';
import { IncomingFollower } from '../../src/services/distribute/incoming-follower.js';
import type { InboundReceiver } from '../../src/services/distribute/inbound-receiver.js';

const silent = pino({ level: 'silent' });

/** Runs a loop for 1.5 s, then counts the abort listeners on its own (private) signal. */
async function listenersAfterRunning(loop: { start(): void; stop(): Promise<void> }): Promise<number> {
  loop.start();
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return getEventListeners((loop as unknown as { abort: AbortController }).abort.signal, 'abort').length;
  } finally {
    await loop.stop();
  }
}

describe('background loops leave no abort listener behind', () => {
  let store: BareStore;
  const names = databaseNames('');
  before(async () => {
    store = await startBareStore('loops');
    for (const db of [names.resourceData, names.incoming]) expect((await store.call('PUT', `/${db}`)).status).to.equal(201);
  });
  after(async () => store.stop());

  const couch = (): ReturnType<typeof connectCouch> => connectCouch({ url: store.url, user: store.user, password: store.password });

  it('the index warmer, after many polls of a quiet database', async () => {
    // A view that does not exist: each pass fails and is retried at the next poll, and every poll waits.
    const warmer = new IndexWarmer(couch(), names.resourceData, [{ ddoc: 'none', views: ['none'] }], silent, { pollMs: 2, quietMs: 1, maxLagMs: 60000 });
    expect(await listenersAfterRunning(warmer)).to.be.at.most(1);
  });

  it('the incoming follower, after many idle cycles', async () => {
    const receiver = { flush: async () => undefined, receive: async () => ({ failed: [] }) } as unknown as InboundReceiver;
    const follower = new IncomingFollower(new IncomingRepository(couch(), names), receiver, silent, { waitMs: 1, settleMs: 1 });
    expect(await listenersAfterRunning(follower)).to.be.at.most(1);
  });
});
