/**
 * Accessibility checks on a page in the browser, from computed styles: the contrast of every
 * visible text against what is behind it (WCAG 2.2 1.4.3: 4.5:1, 3:1 for large text; relative
 * luminance and contrast ratio as WCAG defines them), and the keyboard (2.1.1 and 2.4.7): Tab
 * reaches every focusable element, each showing a focus indicator (an outline or a box shadow)
 * on screen, an outline with 3:1 against its surroundings (1.4.11).
 *
 * The page side only reads styles (no named functions: tsx keeps function names with a helper
 * the page does not have); the arithmetic is done here.
 */
import type { Page } from 'playwright-core';

type Rgba = [number, number, number, number];

/** Parses a computed colour: Chromium gives `rgb(r, g, b)` or `rgba(r, g, b, a)`. */
export function parseColor(value: string): Rgba {
  const match = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(value.trim());
  if (!match) throw new Error(`a computed colour this check does not read: ${value}`);
  const alpha = match[4] === undefined ? 1 : match[4].endsWith('%') ? Number(match[4].slice(0, -1)) / 100 : Number(match[4]);
  return [Number(match[1]), Number(match[2]), Number(match[3]), alpha];
}

/** `top` drawn over the opaque `bottom` (source-over). */
function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top[3];
  return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance([r, g, b]: Rgba): number {
  const linear = (channel: number): number => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

export function contrastRatio(a: Rgba, b: Rgba): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The opaque colour behind an element: its own background and its ancestors' (innermost first),
 * composed over the white canvas. An ancestor with a background image cannot be judged this way.
 */
function backdrop(backgrounds: { color: string; image: string }[]): Rgba {
  let result: Rgba = [255, 255, 255, 1];
  for (const layer of [...backgrounds].reverse()) {
    if (layer.image !== 'none') throw new Error(`a background image (${layer.image}): the contrast cannot be computed from colours`);
    result = over(parseColor(layer.color), result);
  }
  return result;
}

interface TextSample {
  where: string; text: string; color: string; fontSize: number; fontWeight: number;
  backgrounds: { color: string; image: string }[]; shown: boolean;
}

/** A short name for an element in a report: tag, id and classes. */
const NAME_OF = `(element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + Array.from(element.classList).map((name) => '.' + name).join('')`;

/** Every element with text of its own, with what decides its contrast (read in the page). */
async function textSamples(page: Page, only?: string): Promise<TextSample[]> {
  return page.evaluate(`(() => {
    const nameOf = ${NAME_OF};
    const scope = ${only ? `[document.activeElement]` : `Array.from(document.body.querySelectorAll('*'))`};
    const samples = [];
    for (const element of scope) {
      if (!element) continue;
      const text = Array.from(element.childNodes).filter((node) => node.nodeType === Node.TEXT_NODE).map((node) => node.textContent).join(' ').replace(/\\s+/g, ' ').trim();
      if (!text) continue;
      const style = getComputedStyle(element);
      const rect = element.getBoundingClientRect();
      // Text nobody sees (no box, hidden, or moved off the page, as a skip link until focused) has no contrast to judge.
      const shown = rect.width > 0 && rect.height > 0 && style.visibility === 'visible' && rect.right > 0 && rect.bottom > 0 && Number(style.opacity) > 0;
      const backgrounds = [];
      for (let layer = element; layer; layer = layer.parentElement) {
        const layerStyle = getComputedStyle(layer);
        backgrounds.push({ color: layerStyle.backgroundColor, image: layerStyle.backgroundImage });
      }
      samples.push({ where: nameOf(element), text: text.slice(0, 60), color: style.color, fontSize: parseFloat(style.fontSize), fontWeight: Number(style.fontWeight), backgrounds, shown });
    }
    return samples;
  })()`);
}

function contrastProblem(sample: TextSample): string | undefined {
  const background = backdrop(sample.backgrounds);
  const ratio = contrastRatio(over(parseColor(sample.color), background), background);
  // WCAG "large scale": at least 18 point (24 px), or 14 point (18.66 px) bold.
  const large = sample.fontSize >= 24 || (sample.fontSize >= 18.66 && sample.fontWeight >= 700);
  const needed = large ? 3 : 4.5;
  return ratio + 1e-9 < needed ? `${sample.where} "${sample.text}": ${ratio.toFixed(2)}:1, needs ${needed}:1 (${sample.color} on ${background.slice(0, 3).join(',')})` : undefined;
}

export interface ContrastReport { checked: number; problems: string[] }

/** Contrast of every visible text of the page (or of the focused element only). */
export async function textContrast(page: Page, focusedOnly = false): Promise<ContrastReport> {
  const shown = (await textSamples(page, focusedOnly ? 'focused' : undefined)).filter((sample) => sample.shown);
  return { checked: shown.length, problems: shown.map(contrastProblem).filter((problem): problem is string => problem !== undefined) };
}

interface FocusStop {
  index: string | null; where: string; text: string;
  outlineStyle: string; outlineWidth: string; outlineColor: string; boxShadow: string;
  onScreen: boolean; around: { color: string; image: string }[];
}

export interface KeyboardReport {
  /** What Tab can reach, in document order, by name and text. */
  focusable: string[];
  /** What Tab reached, in order. */
  reached: string[];
  problems: string[];
}

/**
 * Presses Tab from the top of the page until focus leaves the page or comes back to the first
 * element it reached, checking each stop; then compares what was reached with every element
 * the page makes focusable (links, form controls, tabindex ≥ 0), none hidden from assistive technology.
 */
export async function tabThrough(page: Page): Promise<KeyboardReport> {
  const focusable = await page.evaluate(`(() => {
    const nameOf = ${NAME_OF};
    const candidates = Array.from(document.querySelectorAll('a[href], area[href], button, input, select, textarea, iframe, summary, [tabindex], [contenteditable]'))
      .filter((element) => element.tabIndex >= 0 && !element.disabled && element.getClientRects().length > 0 && getComputedStyle(element).visibility === 'visible');
    return candidates.map((element, index) => {
      element.setAttribute('data-tab-check', String(index));
      return nameOf(element) + ' "' + (element.textContent || '').trim().slice(0, 40) + '"' + (element.closest('[aria-hidden="true"], [inert]') ? ' (hidden from assistive technology)' : '');
    });
  })()`) as string[];
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  const problems = focusable.filter((name) => name.endsWith('(hidden from assistive technology)')).map((name) => `${name} is focusable`);
  const reached: string[] = [];
  const seen = new Set<string>();
  for (let press = 0; press <= focusable.length + 2; press += 1) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate(`(() => {
      const element = document.activeElement;
      if (!element || element === document.body) return null;
      const style = getComputedStyle(element);
      const rect = element.getBoundingClientRect();
      const around = [];
      for (let layer = element.parentElement; layer; layer = layer.parentElement) {
        const layerStyle = getComputedStyle(layer);
        around.push({ color: layerStyle.backgroundColor, image: layerStyle.backgroundImage });
      }
      return {
        index: element.getAttribute('data-tab-check'), where: (${NAME_OF})(element), text: (element.textContent || '').trim().slice(0, 40),
        outlineStyle: style.outlineStyle, outlineWidth: style.outlineWidth, outlineColor: style.outlineColor, boxShadow: style.boxShadow,
        onScreen: rect.width > 0 && rect.height > 0 && rect.left >= 0 && rect.top >= 0 && rect.right <= innerWidth && rect.bottom <= innerHeight,
        around,
      };
    })()`) as FocusStop | null;
    if (!stop) break;
    const name = `${stop.where} "${stop.text}"`;
    if (stop.index === null) problems.push(`${name} took focus but is not among the focusable elements found`);
    const key = stop.index ?? name;
    if (seen.has(key)) break;
    seen.add(key);
    reached.push(name);
    const outline = stop.outlineStyle !== 'none' && parseFloat(stop.outlineWidth) > 0;
    if (!outline && stop.boxShadow === 'none') problems.push(`${name}: no visible focus (outline ${stop.outlineStyle} ${stop.outlineWidth}, box-shadow none)`);
    if (outline) {
      const background = backdrop(stop.around);
      const ratio = contrastRatio(over(parseColor(stop.outlineColor), background), background);
      if (ratio < 3) problems.push(`${name}: focus outline ${stop.outlineColor} has ${ratio.toFixed(2)}:1 against its surroundings, needs 3:1`);
    }
    if (!stop.onScreen) problems.push(`${name}: focused but not on screen`);
    problems.push(...(await textContrast(page, true)).problems.map((problem) => `focused ${problem}`));
  }
  const missed = focusable.filter((_, index) => !seen.has(String(index)));
  problems.push(...missed.map((name) => `${name} is never reached with Tab`));
  return { focusable, reached, problems };
}
