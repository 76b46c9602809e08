/** The boolean extension arguments (spec "Endpoints": booleans are T or F; XSD-style spellings too). */
import { BadArgument } from './oai-errors.js';
import { parseSpecBoolean } from '../../domain/spec-boolean.js';

export function flagArg(args: Record<string, string>, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  const flag = parseSpecBoolean(value);
  if (flag === undefined) throw new BadArgument(`${name} must be T or F`);
  return flag;
}
