/** The boolean extension arguments (spec "Endpoints": booleans are T or F; XSD-style spellings too). */
import { BadArgument } from './oai-errors.js';
import { specBooleanArgument } from '../../domain/spec-boolean.js';

export function flagArg(args: Record<string, string>, name: string): boolean | undefined {
  return specBooleanArgument(args[name], () => new BadArgument(`${name} must be T or F`));
}
