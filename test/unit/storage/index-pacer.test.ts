/**
 * The rule of src/storage/index-pacer.ts against a scripted lag source: a publish answer goes at
 * once when the indexes trail by at most `maxLag`, waits while they trail further, goes anyway
 * after `maxWaitMs`, and is never let go on a figure read before its documents were written.
 */
import { expect } from 'chai';
import { IndexPacer, type IndexLagSource } from '../../../src/storage/index-pacer.js';

/** Answers the scripted figures in turn (the last one from then on); counts the probes. */
function scripted(...lags: (number | Error)[]): IndexLagSource & { probes: number } {
  const source = {
    probes: 0,
    behind: async (): Promise<number> => {
      const next = lags[Math.min(source.probes, lags.length - 1)] as number | Error;
      source.probes += 1;
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return source;
}

const options = { maxLag: 1000, maxWaitMs: 2000, probeMs: 10 };

describe('index pacer: publish answers held to the index rate', () => {
  it('answers at once when the indexes trail by at most the limit', async () => {
    const source = scripted(1000);
    expect(await new IndexPacer(source, options).withinLimit()).to.equal('current');
    expect(source.probes).to.equal(1);
  });

  it('holds the answer while they trail further, until they catch up', async () => {
    const source = scripted(2000, 1500, 1001, 1000);
    expect(await new IndexPacer(source, options).withinLimit()).to.equal('caught_up');
    expect(source.probes).to.equal(4);
  });

  it('answers after maxWaitMs however far behind the indexes are', async () => {
    const started = Date.now();
    expect(await new IndexPacer(scripted(50000), { ...options, maxWaitMs: 150 }).withinLimit()).to.equal('gave_up');
    const waited = Date.now() - started;
    expect(waited).to.be.at.least(140).and.below(1000);
  });

  it('answers at once when the store does not say how far behind it is', async () => {
    expect(await new IndexPacer(scripted(new Error('store down')), options).withinLimit()).to.equal('unknown');
  });

  it('never takes for a call a figure asked for before it', async () => {
    const source = scripted(0, 1600, 0);
    const pacer = new IndexPacer(source, options);
    expect(await pacer.withinLimit()).to.equal('current');
    // The first figure predates the writes made since: the next call asks again (1600) and is held.
    expect(await pacer.withinLimit()).to.equal('caught_up');
    expect(source.probes).to.equal(3);
  });

  it('shares one probe among the calls held meanwhile', async () => {
    const source = scripted(2000, 2000, 0);
    const pacer = new IndexPacer(source, options);
    expect(await Promise.all([pacer.withinLimit(), pacer.withinLimit()])).to.deep.equal(['caught_up', 'caught_up']);
    // One probe each when called, then the first awake asks for both.
    expect(source.probes).to.equal(3);
  });

  it('answers a held call at once when the node stops, and holds none after', async () => {
    const pacer = new IndexPacer(scripted(50000), { ...options, maxWaitMs: 20000, probeMs: 1000 });
    const started = Date.now();
    const held = pacer.withinLimit();
    setTimeout(() => pacer.release(), 50);
    expect(await held).to.equal('released');
    expect(Date.now() - started).to.be.below(500);
    expect(await pacer.withinLimit()).to.equal('released');
  });

  it('holds many calls at once without a listener warning (64 connections publishing)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => { warnings.push(warning); };
    process.on('warning', onWarning);
    try {
      const pacer = new IndexPacer(scripted(...Array.from({ length: 40 }, () => 5000), 0), { ...options, probeMs: 5 });
      const answers = await Promise.all(Array.from({ length: 40 }, () => pacer.withinLimit()));
      expect(answers.every((answer) => answer === 'caught_up')).to.equal(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  describe('as a backstop (a large limit: reuseRecentMs)', () => {
    const backstop = { ...options, reuseRecentMs: 200 };

    it('admits a call on a figure under reuseRecentMs old that showed at most half the limit, without asking again', async () => {
      const source = scripted(500, 400);
      const pacer = new IndexPacer(source, backstop);
      expect(await pacer.withinLimit()).to.equal('current');
      expect(await pacer.withinLimit()).to.equal('current');
      expect(source.probes).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await pacer.withinLimit()).to.equal('current');
      expect(source.probes, 'a figure past reuseRecentMs is asked again').to.equal(2);
    });

    it('asks again when the recent figure showed more than half the limit', async () => {
      const source = scripted(501, 0);
      const pacer = new IndexPacer(source, backstop);
      expect(await pacer.withinLimit()).to.equal('current');
      expect(await pacer.withinLimit()).to.equal('current');
      expect(source.probes).to.equal(2);
    });

    it('calls onHeld each time it holds a call, before the call sleeps (the index warmer passes meanwhile)', async () => {
      let hurried = 0;
      const pacer = new IndexPacer(scripted(0, 2000, 2000, 0), { ...options, onHeld: () => { hurried += 1; } });
      expect(await pacer.withinLimit()).to.equal('current');
      expect(hurried).to.equal(0);
      expect(await pacer.withinLimit()).to.equal('caught_up');
      expect(hurried).to.equal(2);
    });
  });

  describe('catching up (catchUpLag): the rest of a bulk load that met the backstop', () => {
    const catchingUp = { ...options, reuseRecentMs: 200, catchUpLag: 100 };

    it('admits at the limit until a figure beyond it, then holds each call until the indexes trail by catchUpLag', async () => {
      // 900: within the limit, not yet catching up. 2000: beyond it, so held to 100, not to 1000.
      const source = scripted(900, 2000, 1500, 900, 100, 600, 100);
      const pacer = new IndexPacer(source, catchingUp);
      expect(await pacer.withinLimit()).to.equal('current');
      expect(await pacer.withinLimit()).to.equal('caught_up');
      expect(source.probes, 'held past 900, which the limit alone admits').to.equal(5);
      // Still catching up: 600 is within the limit but not within catchUpLag, and no figure was 0.
      expect(await pacer.withinLimit()).to.equal('caught_up');
      expect(source.probes).to.equal(7);
    });

    it('ends when a call finds the indexes current before it is held (the writes paused): the next load runs to the limit again', async () => {
      const source = scripted(5000, 0, 0, 600);
      const changes: [boolean, number][] = [];
      const pacer = new IndexPacer(source, { ...catchingUp, onCatchUp: (on, lag) => { changes.push([on, lag]); } });
      expect(await pacer.withinLimit()).to.equal('caught_up');
      await new Promise((resolve) => setTimeout(resolve, 250)); // past reuseRecentMs: the next call asks
      expect(await pacer.withinLimit()).to.equal('current');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await pacer.withinLimit(), '600: within the limit again').to.equal('current');
      expect(source.probes).to.equal(4);
      expect(changes).to.deep.equal([[true, 5000], [false, 0]]);
    });

    it('goes on when only a held call saw the indexes current (the publisher waiting for its answer wrote nothing meanwhile)', async () => {
      const source = scripted(5000, 0, 600, 100);
      const pacer = new IndexPacer(source, catchingUp);
      expect(await pacer.withinLimit()).to.equal('caught_up');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await pacer.withinLimit(), '600 is beyond catchUpLag: held').to.equal('caught_up');
      expect(source.probes).to.equal(4);
    });

    it('asks again for every call while catching up, however recent the last figure (no reuse)', async () => {
      // The held call's last figure is 0, then the publisher's next batch lands at once: 600 behind.
      const source = scripted(5000, 0, 600, 100);
      const pacer = new IndexPacer(source, catchingUp);
      expect(await pacer.withinLimit()).to.equal('caught_up');
      expect(await pacer.withinLimit(), 'admitted on the figure of 0 from before its writes').to.equal('caught_up');
      expect(source.probes).to.equal(4);
    });

    it('without catchUpLag, a held load is admitted at the limit again (as before)', async () => {
      const source = scripted(2000, 900, 900);
      const pacer = new IndexPacer(source, { ...options, reuseRecentMs: 200 });
      expect(await pacer.withinLimit()).to.equal('caught_up');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await pacer.withinLimit()).to.equal('current');
    });
  });
});
