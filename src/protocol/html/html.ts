/**
 * A tiny HTML template: `html\`...\`` escapes every interpolated value unless it is already
 * SafeHtml (the result of another `html` template), so user data can never become markup.
 * Escaping is escape-html's (& < > " ' as entities).
 */
import escapeHtml from 'escape-html';

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string { return this.value; }
}

export type HtmlValue = SafeHtml | string | number | boolean | undefined | null | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => { out += render(value) + (strings[index + 1] ?? ''); });
  return new SafeHtml(out);
}
