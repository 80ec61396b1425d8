import { z } from 'zod';

// D6. The code list itself lives in @checkout/errors (with its HTTP status); here the body's shape only.

export const ErrorDetail = z
  .object({
    path: z.string().describe('Dotted path of the offending field, e.g. `items.0.quantity`; "" for the whole body.'),
    message: z.string(),
  })
  .meta({ id: 'ErrorDetail' });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = z
  .object({
    code: z.string().describe('Machine-readable error code, e.g. `ORDER_CREATE_FAILED`.'),
    message: z.string().describe('Human-readable explanation.'),
    details: z.array(ErrorDetail).optional().describe('Field-level problems; non-empty on validation failures (D7).'),
    quota: z
      .object({
        budget: z.enum(['events', 'deliveries', 'bytes']).describe('The daily budget used up.'),
        limit: z.number().int().describe("The budget's limit per UTC day for this organization and mode."),
        resetsAt: z.iso.datetime().describe('When the budget starts again: the next UTC midnight.'),
      })
      .optional()
      .describe('429 `QUOTA_EXCEEDED` only: which daily budget of the organization and mode was used up.'),
    requestId: z.string().describe('Same value as the X-Request-Id response header.'),
  })
  .meta({ id: 'ErrorBody' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Turns a zod failure into D6 details. An unknown key is reported at its own path (`customer.foo`), not at its
 * parent's, so a merchant sees which field to remove.
 */
export function zodIssuesToDetails(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details.push({ path: [...base, key].join('.'), message: 'unknown field' });
    } else {
      details.push({ path: base.join('.'), message: issue.message });
    }
  }
  return details;
}
