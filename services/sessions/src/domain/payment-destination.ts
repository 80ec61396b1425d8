/**
 * Whether payments may go to a registered payment destination: orders' rule when an order names one (active and
 * verified, services/orders/src/domain/orders.use-cases.ts, checkReferences), applied again whenever the hosted page
 * offers it or takes a payment into it, since operators may deactivate it, or withdraw its verification, while
 * checkouts naming it are still open.
 */
export function acceptsPayments(destination: { status: string; verified: boolean } | null): boolean {
  return destination !== null && destination.status === 'active' && destination.verified;
}
