import { z } from 'zod';
import { nonBlankString } from './common';

// ---------------------------------------------------------------------------------------------------------
// Customer (D11)

export const EMAIL_MAX = 254;
export const NAME_MAX = 200;
export const PHONE_MAX = 32;

// zod's email format is a pragmatic subset of RFC 5322 (no quoted local parts, no IP literals): what a payer
// types into a checkout form. Lowercasing is an in-place overwrite, not a transform, so the schema still has
// a JSON Schema form.
// The check is zod's email pattern, given as a plain pattern: the document then states exactly that rule,
// where `format: "email"` would let each client library apply a stricter one of its own (Schemathesis found
// one rejecting a 110-character local part the server accepts).
export const Email = z
  .string()
  .max(EMAIL_MAX)
  .regex(z.regexes.email, { error: 'must be a valid email address' })
  .toLowerCase()
  .describe(`Email address, at most ${EMAIL_MAX} characters; stored lowercased and matched case-insensitively.`);

// E.164 allows at most 15 digits; people write them with spaces, dashes, dots and parentheses, so those are
// allowed around the digits and kept as written. One pattern says both (an optional "+", then 7 to 15 digits
// with separators anywhere), so the OpenAPI document states exactly the rule the server applies.
export const PHONE_DIGITS_MIN = 7;
export const PHONE_DIGITS_MAX = 15;
const PHONE_PATTERN = new RegExp(`^\\+?[ ().-]*(?:[0-9][ ().-]*){${PHONE_DIGITS_MIN},${PHONE_DIGITS_MAX}}$`);
export const Phone = z
  .string()
  .max(PHONE_MAX)
  .regex(PHONE_PATTERN, {
    error: `must be a phone number of ${PHONE_DIGITS_MIN} to ${PHONE_DIGITS_MAX} digits, with an optional leading "+" and spaces, "-", ".", "()"`,
  })
  .describe(
    `Phone number, preferably E.164 (\`+14155550123\`); ${PHONE_DIGITS_MIN} to ${PHONE_DIGITS_MAX} digits, at most ${PHONE_MAX} characters.`,
  );

const customerShape = {
  email: Email,
  name: nonBlankString(NAME_MAX).describe('Customer name.').optional(),
  phone: Phone.optional(),
};

/** On create a customer is found or created by email, so email is required (D11). */
export const CustomerInput = z
  .strictObject(customerShape)
  .meta({ id: 'CustomerInput', description: 'Customer, found or created by email within the organization and mode.' });
export type CustomerInput = z.infer<typeof CustomerInput>;

/** On PATCH the given fields merge into the snapshot; email may be left out when the order has a customer (D11). */
export const CustomerPatchInput = z.strictObject({ ...customerShape, email: Email.optional() }).meta({
  id: 'CustomerPatchInput',
  description:
    "Fields merged into the order's customer snapshot. Email is required only when the order has no customer; " +
    'a different email switches the order to that customer.',
});
export type CustomerPatchInput = z.infer<typeof CustomerPatchInput>;
