import type { z } from 'zod';
import { DomainError, type ErrorCode } from '@checkout/errors';
import { zodIssuesToDetails } from '@checkout/contracts';

/** Parses input with a contract schema; a failure is the endpoint's own code with a details array (D7). */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  failureCode: ErrorCode,
  options: { message?: string; codeForField?: Partial<Record<string, ErrorCode>> } = {},
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = zodIssuesToDetails(result.error);
  // Some fields have a code of their own (D7, D14, D15): a malformed locationId is INVALID_LOCATION_ID
  // whatever else is wrong with the body.
  for (const issue of result.error.issues) {
    const fieldCode = options.codeForField?.[String(issue.path[0])];
    if (fieldCode) throw new DomainError(fieldCode, issue.message, { details });
  }
  throw new DomainError(failureCode, options.message ?? 'The request is invalid.', { details });
}
