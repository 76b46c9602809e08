/**
 * Progress of publish and harvest on standard error: a cli-progress bar on a terminal, plain
 * lines (at most one a second, and a last one) otherwise, nothing with --json. Standard output
 * keeps only the result, so it can be piped.
 */
import cliProgress from 'cli-progress';

export interface ProgressCounts { done: number; total?: number; accepted?: number; rejected?: number }

export interface Progress {
  update(counts: ProgressCounts): void;
  /** A line that must not be torn by the bar (a retry notice). */
  note(line: string): void;
  stop(): void;
}

type Stream = NodeJS.WriteStream;

function rateOf(done: number, startDone: number, startedAt: number): number {
  const seconds = (Date.now() - startedAt) / 1000;
  return seconds > 0 ? (done - startDone) / seconds : 0;
}

function countsText(unit: string, counts: ProgressCounts, rate: number): string {
  const parts = [counts.total ? `${counts.done}/${counts.total} ${unit}` : `${counts.done} ${unit}`];
  if (counts.accepted !== undefined) parts.push(`${counts.accepted} accepted`);
  if (counts.rejected !== undefined) parts.push(`${counts.rejected} rejected`);
  parts.push(`${rate.toFixed(1)}/s`);
  return parts.join(' | ');
}

function etaText(counts: ProgressCounts, rate: number): string {
  if (!counts.total || rate <= 0) return '';
  return ` | ETA ${Math.max(0, Math.round((counts.total - counts.done) / rate))}s`;
}

function barProgress(label: string, unit: string, stream: Stream): Progress {
  let startedAt = 0;
  let startDone = 0;
  let latest: ProgressCounts = { done: 0 };
  const bar = new cliProgress.SingleBar({
    stream,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 20,
    format: (options, params) => {
      const rate = rateOf(latest.done, startDone, startedAt);
      const text = countsText(unit, latest, rate);
      if (!params.total) return `${label} ${text}`;
      const eta = Number.isFinite(params.eta) && params.value > startDone ? `${cliProgress.Format.TimeFormat(params.eta, options, 5)}` : '?';
      return `${label} ${cliProgress.Format.BarFormat(params.progress, options)} ${Math.floor(params.progress * 100)}% | ${text} | ETA ${eta}`;
    },
  }, cliProgress.Presets.shades_classic);
  return {
    update(counts) {
      latest = counts;
      if (!startedAt) { startedAt = Date.now(); startDone = counts.done; bar.start(counts.total ?? 0, counts.done); }
      if (counts.total !== undefined && counts.total !== bar.getTotal()) bar.setTotal(counts.total);
      bar.update(counts.done);
    },
    note(line) {
      if (startedAt) bar.stop();
      stream.write(`${line}\n`);
      if (startedAt) bar.start(latest.total ?? 0, latest.done);
    },
    stop() { if (startedAt) bar.stop(); },
  };
}

function lineProgress(label: string, unit: string, stream: Stream): Progress {
  let startedAt = 0;
  let startDone = 0;
  let lastLine = 0;
  let pending: ProgressCounts | undefined;
  const print = (counts: ProgressCounts): void => {
    const rate = rateOf(counts.done, startDone, startedAt);
    stream.write(`${label}: ${countsText(unit, counts, rate)}${etaText(counts, rate)}\n`);
    lastLine = Date.now();
    pending = undefined;
  };
  return {
    update(counts) {
      if (!startedAt) { startedAt = Date.now(); startDone = counts.done; }
      pending = counts;
      if (Date.now() - lastLine >= 1000) print(counts);
    },
    note(line) { stream.write(`${line}\n`); },
    stop() { if (pending) print(pending); },
  };
}

const silent: Progress = { update: () => undefined, note: () => undefined, stop: () => undefined };

export function createProgress(label: string, unit: string, options: { json?: boolean; stream?: Stream } = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (options.json) return silent;
  return stream.isTTY ? barProgress(label, unit, stream) : lineProgress(label, unit, stream);
}
