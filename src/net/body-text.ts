/**
 * A fetched body as text, in the charset its Content-Type names (RFC 9110 §8.3.2), UTF-8 when it
 * names none or one the platform does not know (a wrong label must not fail the fetch).
 */
import { parse as parseContentType } from 'content-type';

function charsetOf(contentType: string | null): string {
  return (contentType && parseContentType(contentType).parameters.charset) || 'utf-8';
}

export function decodeText(body: Buffer, contentType: string | null): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(contentType));
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(body);
}
