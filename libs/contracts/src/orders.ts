import { z } from 'zod';
import { ShippingAddress } from './address';
import { ExternalId, Pagination, PaymentDestination, Timestamp, nonBlankString, paginationQueryShape } from './common';
import { CustomerInput, CustomerPatchInput } from './customer';
import { Metadata } from './user-data';
import { CustomerId, LocationId, OrderId } from './ids';

// ---------------------------------------------------------------------------------------------------------
// Enums

export const ORDER_STATUSES = ['open', 'completed', 'cancelled'] as const;
export const OrderStatus = z.enum(ORDER_STATUSES).describe('Order status.');
export type OrderStatus = z.infer<typeof OrderStatus>;

export const PAYMENT_STATUSES = [
  'unpaid',
  'partially_paid',
  'paid',
  'overpaid',
  'partially_refunded',
  'refunded',
] as const;
export const PaymentStatus = z
  .enum(PAYMENT_STATUSES)
  .describe(
    'Payment status. While nothing is refunded, from amounts.paid against amounts.total (D19); once a refund has ' +
      'succeeded, `partially_refunded` (0 < amounts.refunded < amounts.paid) or `refunded` (amounts.refunded = ' +
      'amounts.paid) (D48).',
  );
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const PROVIDERS = ['native', 'square', 'clover'] as const;
export const Provider = z.enum(PROVIDERS).describe('Order source. Orders created through this API are `native`.');
export type Provider = z.infer<typeof Provider>;

export const TAX_TYPES = ['additive'] as const;
export const TaxType = z.enum(TAX_TYPES).describe('Tax type. `additive` adds its amount to the total.');
export type TaxType = z.infer<typeof TaxType>;

export const DISCOUNT_TYPES = ['fixed', 'percentage'] as const;
export const DiscountType = z
  .enum(DISCOUNT_TYPES)
  .describe('`fixed` subtracts an amount in minor units; `percentage` subtracts that percent of the subtotal.');
export type DiscountType = z.infer<typeof DiscountType>;

export const ITEM_TYPES = ['product'] as const;
export const ItemType = z.enum(ITEM_TYPES).describe('Item type.');
export type ItemType = z.infer<typeof ItemType>;

// ---------------------------------------------------------------------------------------------------------
// Bounds (D9, D10)

/** D10: the largest amount, in minor units, that any computed order amount may reach. */
export const MAX_AMOUNT = 999_999_999_999;
export const ITEMS_MAX = 100;
export const TAXES_MAX = 20;
export const DISCOUNTS_MAX = 20;
export const LINE_NAME_MAX = 250;
export const QUANTITY_MAX = 1_000_000;
export const DEFAULT_TAX_NAME = 'Tax';

// z.int() already confines numbers to the safe-integer range, so BigInt arithmetic downstream is exact; the
// D10 ceiling applies to computed totals and is checked where they are computed (orders domain).
const minorUnits = (min: number) => z.int().min(min);

// ---------------------------------------------------------------------------------------------------------
// Line inputs (D9)

export const ItemInput = z
  .strictObject({
    name: nonBlankString(LINE_NAME_MAX).describe(`Item name, 1 to ${LINE_NAME_MAX} characters.`),
    quantity: z.int().min(1).max(QUANTITY_MAX).describe(`Quantity, 1 to ${QUANTITY_MAX}.`),
    unitPrice: minorUnits(0).describe('Unit price in minor units.'),
  })
  .meta({ id: 'ItemInput' });
export type ItemInput = z.infer<typeof ItemInput>;

export const TaxInput = z
  .strictObject({
    name: nonBlankString(LINE_NAME_MAX)
      .default(DEFAULT_TAX_NAME)
      .describe(`Tax label, 1 to ${LINE_NAME_MAX} characters; "${DEFAULT_TAX_NAME}" when omitted.`),
    type: TaxType,
    amount: minorUnits(0).describe('Tax amount in minor units.'),
  })
  .meta({ id: 'TaxInput' });
export type TaxInput = z.infer<typeof TaxInput>;

const PERCENT_MIN = 1;
const PERCENT_MAX = 100;
const percent = () => z.int().min(PERCENT_MIN).max(PERCENT_MAX);
const discountName = () => nonBlankString(LINE_NAME_MAX).describe(`Discount name, 1 to ${LINE_NAME_MAX} characters.`);

const FixedDiscountInput = z
  .strictObject({
    name: discountName(),
    type: z.literal('fixed'),
    amount: minorUnits(1).describe('Amount subtracted, in minor units (at least 1).'),
  })
  .meta({ id: 'FixedDiscountInput' });

// The spec's guide sends `rate` on a percentage discount; accepting it as an alias keeps that example working,
// while exactly-one-of keeps a request from meaning two different things. Responses only ever carry `amount`.
const PercentageDiscountInput = z
  .strictObject({
    name: discountName(),
    type: z.literal('percentage'),
    amount: percent().optional().describe('Percent of the subtotal, 1 to 100 (10 means ten percent).'),
    rate: percent()
      .optional()
      .describe('Alias of `amount` for percentage discounts, same unit (10 means ten percent). Send one, not both.'),
  })
  .superRefine((value, ctx) => {
    if (value.amount !== undefined && value.rate !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['rate'], message: 'send either amount or rate, not both' });
    } else if (value.amount === undefined && value.rate === undefined) {
      ctx.addIssue({ code: 'custom', path: ['amount'], message: 'amount (or rate) is required' });
    }
  })
  .transform(({ name, type, amount, rate }) => ({ name, type, amount: (amount ?? rate) as number }))
  // The same exactly-one-of rule for the OpenAPI document: a client generating requests from it sends one.
  .meta({ id: 'PercentageDiscountInput', oneOf: [{ required: ['amount'] }, { required: ['rate'] }] });

export const DiscountInput = z
  .discriminatedUnion('type', [FixedDiscountInput, PercentageDiscountInput])
  .meta({ id: 'DiscountInput' });
/** After parsing, a discount always has `amount` (a percentage's `rate` is folded into it). */
export type DiscountInput = z.infer<typeof DiscountInput>;

export const Items = z.array(ItemInput).min(1).max(ITEMS_MAX).describe(`Order items, 1 to ${ITEMS_MAX}.`);
export const Taxes = z.array(TaxInput).max(TAXES_MAX).describe(`Taxes, 0 to ${TAXES_MAX}.`);
export const Discounts = z
  .array(DiscountInput)
  .max(DISCOUNTS_MAX)
  .describe(`Discounts, 0 to ${DISCOUNTS_MAX}. Fixed and percentage discounts add up.`);

// ---------------------------------------------------------------------------------------------------------
// Requests

/** Fields an order can be created with; checkout session creation accepts the same ones. */
export const orderCreateShape = {
  items: Items,
  externalId: ExternalId.optional(),
  taxes: Taxes.optional(),
  discounts: Discounts.optional(),
  customer: CustomerInput.optional(),
  shippingAddress: ShippingAddress.optional(),
  locationId: LocationId.optional(),
  paymentDestination: PaymentDestination.optional(),
  metadata: Metadata.optional(),
};

/**
 * Fields whose malformed values have error codes of their own (D7, D14, D15), for every body that carries an
 * order (orders' create and update, sessions' create). The owner that validates applies them; nobody else.
 */
export const ORDER_FIELD_CODES = {
  locationId: 'INVALID_LOCATION_ID',
  paymentDestination: 'INVALID_PAYMENT_DESTINATION',
} as const;
/** The same for the list query (D20): a malformed locationId filter. */
export const LIST_ORDERS_FIELD_CODES = { locationId: 'INVALID_LOCATION_ID' } as const;

export const CreateOrderRequest = z.strictObject(orderCreateShape).meta({ id: 'CreateOrderRequest' });
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

// externalId is simply absent from the shape, so strictness rejects it (D8) with the same path-bearing detail
// as any other unknown field.
export const UpdateOrderRequest = z
  .strictObject({
    items: Items.optional().describe(`Replaces all items; 1 to ${ITEMS_MAX}.`),
    taxes: Taxes.optional().describe('Replaces all taxes; an empty array clears them.'),
    discounts: Discounts.optional().describe('Replaces all discounts; an empty array clears them.'),
    customer: CustomerPatchInput.optional(),
    shippingAddress: ShippingAddress.optional(),
    metadata: Metadata.optional(),
  })
  .meta({
    id: 'UpdateOrderRequest',
    description: 'Every field optional; an omitted field is unchanged. `externalId` cannot be changed.',
  });
export type UpdateOrderRequest = z.infer<typeof UpdateOrderRequest>;

export const ListOrdersQuery = z
  .strictObject({
    ...paginationQueryShape,
    status: OrderStatus.optional(),
    paymentStatus: PaymentStatus.optional(),
    provider: Provider.optional(),
    locationId: LocationId.optional(),
    externalId: ExternalId.optional().describe(
      "Only the order created with this externalId (D47: the dashboard's lookup).",
    ),
  })
  .meta({ id: 'ListOrdersQuery' });
export type ListOrdersQuery = z.infer<typeof ListOrdersQuery>;

// ---------------------------------------------------------------------------------------------------------
// Responses (D18, D19, D39: optional fields are omitted while unset)

const amount = () => z.int().min(0).max(MAX_AMOUNT);

export const Amounts = z
  .object({
    subtotal: amount().describe('Sum of item totalPrice values.'),
    tax: amount().describe('Sum of tax amounts.'),
    discount: amount().describe('Sum of fixed discounts plus each percentage of the subtotal, rounded half up.'),
    tip: amount().describe('Tip; always 0 in v0.'),
    total: amount().describe('Amount due: subtotal + tax − discount + tip.'),
    // Overpayment is possible (D19), so paid is not capped by the D10 ceiling.
    paid: z.int().min(0).describe('Amount received so far.'),
    // A tolerant reader (D48): orders written before refunds existed, and the answers and events of an orders
    // version that predates them, carry no `refunded`; that means nothing was refunded.
    refunded: z
      .int()
      .min(0)
      .default(0)
      .describe('Sum of the succeeded refunds (D48); never more than paid. Pending refunds are not counted.'),
  })
  .meta({ id: 'Amounts', description: 'Order amounts, integers in minor units.' });
export type Amounts = z.infer<typeof Amounts>;

// Line ids are opaque in the spec (orders from other providers may carry their own), so responses only
// promise a non-empty string.
const lineId = (description: string) => z.string().min(1).describe(description);

export const OrderItem = z
  .object({
    id: lineId('Item id (`item_<suffix>` for native orders).'),
    name: z.string(),
    quantity: z.int().min(1),
    unitPrice: z.int().min(0),
    totalPrice: z.int().min(0).describe('quantity × unitPrice.'),
    itemType: ItemType,
  })
  .meta({ id: 'OrderItem' });
export type OrderItem = z.infer<typeof OrderItem>;

export const OrderTax = z
  .object({
    id: lineId('Tax id (`tax_<suffix>`).'),
    name: z.string(),
    type: TaxType,
    amount: z.int().min(0),
    rate: z.null().describe('Always null in v0.'),
    scope: z.literal('order'),
  })
  .meta({ id: 'OrderTax' });
export type OrderTax = z.infer<typeof OrderTax>;

export const OrderDiscount = z
  .object({
    id: lineId('Discount id (`disc_<suffix>`).'),
    name: z.string(),
    type: DiscountType,
    amount: z.int().min(0).describe('For `fixed`, minor units; for `percentage`, the percent.'),
    scope: z.literal('order'),
  })
  .meta({ id: 'OrderDiscount' });
export type OrderDiscount = z.infer<typeof OrderDiscount>;

export const OrderCustomer = z
  .object({
    id: CustomerId,
    email: z.string(),
    name: z.string().optional(),
    phone: z.string().optional(),
  })
  .meta({ id: 'OrderCustomer', description: 'Snapshot of the customer stored on the order.' });
export type OrderCustomer = z.infer<typeof OrderCustomer>;

export const Order = z
  .object({
    id: OrderId,
    externalId: z.string().optional().describe('Present when supplied at creation.'),
    provider: Provider,
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .describe('ISO 4217 code; orders created through the API carry USD.'),
    status: OrderStatus,
    paymentStatus: PaymentStatus,
    amounts: Amounts,
    customer: OrderCustomer.optional(),
    items: z.array(OrderItem),
    taxes: z.array(OrderTax),
    discounts: z.array(OrderDiscount),
    locationId: LocationId.optional(),
    shippingAddress: ShippingAddress.optional(),
    // D39 wins over D18's "when set": metadata is always present, `{}` until set.
    metadata: Metadata,
    paymentDestination: z.string().optional(),
    paidAt: Timestamp.optional().describe('Set when the order becomes paid.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

export const OrderResponse = z.object({ order: Order }).meta({ id: 'OrderResponse' });
export type OrderResponse = z.infer<typeof OrderResponse>;

export const OrderListResponse = z
  .object({ orders: z.array(Order), pagination: Pagination })
  .meta({ id: 'OrderListResponse' });
export type OrderListResponse = z.infer<typeof OrderListResponse>;
