/** Helpers for the SWORD / Atom Publishing tests: namespace-aware XML reading and requests. */
import { execFile } from 'node:child_process';
import { create } from 'xmlbuilder2';

export const NS = {
  app: 'http://www.w3.org/2007/app',
  atom: 'http://www.w3.org/2005/Atom',
  sword: 'http://purl.org/net/sword/',
  dcterms: 'http://purl.org/dc/terms/',
} as const;

export const ERROR_URI = (name: string): string => `http://purl.org/net/sword/error/${name}`;

export interface XmlDoc {
  root: Element;
  /** Descendants of `from` (default: the root) with this namespace and local name. */
  all(ns: string, local: string, from?: Element): Element[];
  /** Children only: the elements directly under `from`. */
  children(ns: string, local: string, from?: Element): Element[];
  text(ns: string, local: string, from?: Element): string | undefined;
}

export function parseXml(text: string): XmlDoc {
  const root = create(text).root().node as unknown as Element;
  const all = (ns: string, local: string, from: Element = root): Element[] => Array.from(from.getElementsByTagNameNS(ns, local));
  return {
    root,
    all,
    children: (ns, local, from = root) => Array.from(from.childNodes).filter((n): n is Element => (n as Element).namespaceURI === ns && (n as Element).localName === local),
    text: (ns, local, from = root) => all(ns, local, from)[0]?.textContent ?? undefined,
  };
}

export interface XmlResponse { status: number; headers: Headers; text: string; xml: XmlDoc }

export async function fetchXml(url: string, init?: RequestInit): Promise<XmlResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  let xml: XmlDoc;
  try {
    xml = parseXml(text);
  } catch {
    throw new Error(`not XML (${response.status}): ${text.slice(0, 200)}`);
  }
  return { status: response.status, headers: response.headers, text, xml };
}

/** Asynchronous: the node under test answers from this same process, so never spawnSync here. */
export function runPerl(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('perl', ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
