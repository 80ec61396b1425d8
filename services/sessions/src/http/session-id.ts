import { DomainError } from '@checkout/errors';
import { isIdOf } from '@checkout/contracts';

/** D4: a malformed id is INVALID_SESSION_ID; a well-formed unknown one is SESSION_NOT_FOUND later. */
export function sessionIdParam(value: string | undefined): string {
  if (!isIdOf('cs', value))
    throw new DomainError('INVALID_SESSION_ID', `"${value ?? ''}" is not a checkout session id.`);
  return value;
}
