/** The boolean extension arguments (spec "Endpoints": booleans are T or F; XSD-style spellings too). */
import { BadArgument } from './oai-errors.js';

export function flagArg(args: Record<string, string>, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (/^(t|T|true|True|TRUE)$/.test(value)) return true;
  if (/^(f|F|false|False|FALSE)$/.test(value)) return false;
  throw new BadArgument(`${name} must be T or F`);
}
