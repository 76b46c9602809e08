/** RequestSlots (src/http/request-slots.ts): at most `limit` heavy requests at once, the rest in turn, a bounded wait. */
import { expect } from 'chai';
import { RequestSlots } from '../../../src/http/request-slots.js';
import { AppError } from '../../../src/errors/app-error.js';
import type { NodeContext } from '../../../src/http/context.js';

const client = (gone = false): NodeContext => ({ req: { socket: { destroyed: gone } } }) as unknown as NodeContext;

/** Work that ends when `finish` is called, recording when it began. */
function held(log: string[], name: string): { work: () => Promise<string>; finish(): void } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => { finish = resolve; });
  return { work: async () => { log.push(name); await done; return name; }, finish: () => finish() };
}

const tick = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

describe('request slots for heavy requests', () => {
  it('runs at most `limit` at once and the others in arrival order, each as a slot frees', async () => {
    const slots = new RequestSlots(2, 10_000);
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => held(log, name));
    const answers = jobs.map((job) => slots.run(client(), job.work));
    await tick();
    expect(log).to.deep.equal(['a', 'b']);
    expect(slots.busy).to.deep.equal({ running: 2, waiting: 2 });
    jobs[1]?.finish();
    await tick();
    expect(log).to.deep.equal(['a', 'b', 'c']);
    jobs[0]?.finish();
    await tick();
    expect(log).to.deep.equal(['a', 'b', 'c', 'd']);
    jobs[2]?.finish();
    jobs[3]?.finish();
    expect(await Promise.all(answers)).to.deep.equal(['a', 'b', 'c', 'd']);
    expect(slots.busy).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('answers 503 with Retry-After to a request that waited its longest, and keeps the slot count right', async () => {
    const slots = new RequestSlots(1, 50);
    const log: string[] = [];
    const first = held(log, 'first');
    const running = slots.run(client(), first.work);
    const refused = await slots.run(client(), async () => 'never').then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(AppError);
    expect(refused).to.include({ status: 503, code: 'node_busy', retryAfter: 2 });
    expect((refused as Error).message).to.match(/1 list pages and publish batches were in progress for 0.05 s/);
    expect(slots.busy).to.deep.equal({ running: 1, waiting: 0 });
    first.finish();
    await running;
    expect(await slots.run(client(), async () => 'next')).to.equal('next');
    expect(slots.busy).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const slots = new RequestSlots(1, 10_000);
    const failed = await slots.run(client(), async () => { throw new Error('store down'); }).catch((error: Error) => error.message);
    expect(failed).to.equal('store down');
    expect(await slots.run(client(), async () => 'after')).to.equal('after');
  });

  it('does not run the work of a client that went away while it waited', async () => {
    const slots = new RequestSlots(1, 10_000);
    const log: string[] = [];
    const first = held(log, 'first');
    const running = slots.run(client(), first.work);
    const gone = client();
    const waiting = slots.run(gone, async () => { log.push('gone'); return 'gone'; }).catch((error: AppError) => error.code);
    (gone.req.socket as { destroyed: boolean }).destroyed = true;
    first.finish();
    await running;
    expect(await waiting).to.equal('node_busy');
    expect(log).to.deep.equal(['first']);
    expect(slots.busy).to.deep.equal({ running: 0, waiting: 0 });
  });

  it('with no limit runs everything at once', async () => {
    const slots = new RequestSlots(undefined, 10);
    const log: string[] = [];
    const jobs = Array.from({ length: 20 }, (_, i) => held(log, String(i)));
    const answers = jobs.map((job) => slots.run(client(), job.work));
    await tick();
    expect(log).to.have.length(20);
    for (const job of jobs) job.finish();
    expect(await Promise.all(answers)).to.have.length(20);
  });
});
