import Router from '@koa/router';
import { z } from 'zod';
import { DomainError } from '@checkout/errors';
import { parseOrThrow, requireScope } from '@checkout/http';
import {
  PAYMENT_DESTINATION_STATUSES,
  isIdOf,
  type Location,
  type LocationResponse,
  type LocationsResponse,
  type PaymentDestinationView,
  type PaymentDestinationResponse,
  type PaymentDestinationsResponse,
} from '@checkout/contracts';
import type { ReferenceData } from '../domain/reference-data';
import type { LocationDocument, PaymentDestinationDocument } from '../store/reference-data.document';

const CreateLocation = z.strictObject({ name: z.string().trim().min(1).max(200) });
const DestinationStatus = z.enum(PAYMENT_DESTINATION_STATUSES);
const CreateDestination = z.strictObject({
  address: z
    .string()
    .regex(
      /^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$/,
      'must be an EVM (0x + 40 hex) or Solana (base58) address',
    ),
  status: DestinationStatus.default('active'),
  verified: z.boolean().default(false),
});
const UpdateDestination = z.strictObject({ status: DestinationStatus.optional(), verified: z.boolean().optional() });
/** `destination`: the one destination an order names (its id or address), whatever its state; the hosted page asks. */
const ListDestinationsQuery = z.object({ destination: z.string().min(1).max(100).optional() });

const presentLocation = (l: LocationDocument): Location => ({
  id: l._id,
  name: l.name,
  createdAt: l.createdAt.toISOString(),
});
const presentDestination = (d: PaymentDestinationDocument): PaymentDestinationView => ({
  id: d._id,
  address: d.address,
  network: d.network,
  status: d.status,
  verified: d.verified,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

/** Operator-only reference data (D38); reached through the gateway's admin API. */
export function referenceDataRoutes(referenceData: ReferenceData): Router {
  const router = new Router({ prefix: '/internal/admin' });

  router.get('/locations', async (ctx) => {
    ctx.body = {
      locations: (await referenceData.listLocations(requireScope(ctx.state))).map(presentLocation),
    } satisfies LocationsResponse;
  });
  router.post('/locations', async (ctx) => {
    const input = parseOrThrow(CreateLocation, ctx.request.jsonBody ?? {}, 'ADMIN_REQUEST_FAILED');
    ctx.status = 201;
    ctx.body = {
      location: presentLocation(await referenceData.createLocation(requireScope(ctx.state), input.name)),
    } satisfies LocationResponse;
  });
  router.get('/payment-destinations', async (ctx) => {
    const scope = requireScope(ctx.state);
    const { destination } = parseOrThrow(ListDestinationsQuery, ctx.query, 'ADMIN_REQUEST_FAILED');
    if (destination !== undefined) {
      // One read by id or address (as an order names it), not the organization's whole list.
      const found = await referenceData.findDestination(scope, destination);
      ctx.body = {
        paymentDestinations: found ? [presentDestination(found)] : [],
      } satisfies PaymentDestinationsResponse;
      return;
    }
    ctx.body = {
      paymentDestinations: (await referenceData.listDestinations(scope)).map(presentDestination),
    } satisfies PaymentDestinationsResponse;
  });
  router.post('/payment-destinations', async (ctx) => {
    const input = parseOrThrow(CreateDestination, ctx.request.jsonBody ?? {}, 'ADMIN_REQUEST_FAILED');
    ctx.status = 201;
    ctx.body = {
      paymentDestination: presentDestination(await referenceData.createDestination(requireScope(ctx.state), input)),
    } satisfies PaymentDestinationResponse;
  });
  router.patch('/payment-destinations/:id', async (ctx) => {
    const id = ctx.params.id;
    if (!isIdOf('pd', id))
      throw new DomainError('ADMIN_REQUEST_FAILED', `"${id ?? ''}" is not a payment destination id.`);
    const patch = parseOrThrow(UpdateDestination, ctx.request.jsonBody ?? {}, 'ADMIN_REQUEST_FAILED');
    const updated = await referenceData.updateDestination(requireScope(ctx.state), id, patch);
    ctx.body = { paymentDestination: presentDestination(updated) } satisfies PaymentDestinationResponse;
  });
  return router;
}
