/**
 * Validates OAI-PMH responses with Debian's xmllint against the schemas in
 * test/fixtures/schemas: the official OAI-PMH 2.0 schema when xsi:schemaLocation names it, the
 * node's extension schema when it names that one (so the test also checks the right one is
 * named). nsdl_dc and comm_para records (the sample corpus and paradata) are accepted by
 * test-only stubs, as the NSDL schemas are not available offline.
 */
import path from 'node:path';
import { ROOT } from './process.js';
import { runProgram } from './programs.js';

const SCHEMAS = path.join(ROOT, 'test', 'fixtures', 'schemas');
export const OFFICIAL_DRIVER = path.join(SCHEMAS, 'oai-pmh', 'oai-pmh-all.xsd');
export const EXTENSION_DRIVER = path.join(SCHEMAS, 'oai-pmh', 'lr', 'lr-all.xsd');
const OFFICIAL_WITH_NSDL = path.join(SCHEMAS, 'drivers', 'standard-nsdl.xsd');
const EXTENSION_WITH_NSDL = path.join(SCHEMAS, 'drivers', 'extension-nsdl.xsd');
const OFFICIAL_LOCATION = 'http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd';

export function xmllint(xml: string, schema: string): { ok: boolean; output: string } {
  const result = runProgram('xmllint', 'xmllint', ['--noout', '--nonet', '--schema', schema, '-'], xml);
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

export function schemaLocationOf(xml: string): string | undefined {
  return /<OAI-PMH\b[^>]*\bxsi:schemaLocation="([^"]*)"/.exec(xml)?.[1];
}

/** Throws unless the response validates against the schema its xsi:schemaLocation names. */
export function assertValidOai(xml: string, expected: 'official' | 'extension', extensionUrl?: string): void {
  const location = schemaLocationOf(xml);
  if (expected === 'official' && location !== OFFICIAL_LOCATION) throw new Error(`expected the official schema in xsi:schemaLocation, got ${location}`);
  if (expected === 'extension' && (location === OFFICIAL_LOCATION || (extensionUrl !== undefined && location !== `http://www.openarchives.org/OAI/2.0/ ${extensionUrl}`))) {
    throw new Error(`expected the extension schema in xsi:schemaLocation, got ${location}`);
  }
  const nsdl = xml.includes('http://ns.nsdl.org/nsdl_dc_v1.02/') || xml.includes('http://ns.nsdl.org/ncs/comm_para');
  const driver = expected === 'official' ? (nsdl ? OFFICIAL_WITH_NSDL : OFFICIAL_DRIVER) : (nsdl ? EXTENSION_WITH_NSDL : EXTENSION_DRIVER);
  const result = xmllint(xml, driver);
  if (!result.ok) throw new Error(`response does not validate against ${path.relative(ROOT, driver)}:\n${result.output.slice(0, 3000)}\n--- response:\n${xml.slice(0, 2000)}`);
}
