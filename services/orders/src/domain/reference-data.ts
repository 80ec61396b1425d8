import type { Scope } from '@checkout/mongo';
import { DomainError } from '@checkout/errors';
import type { StoredReferenceData } from './ports';
import type { DestinationStatus, LocationDocument, PaymentDestinationDocument } from '../store/reference-data.document';

/**
 * Operators' reference data (D38): an organization's locations and payment destinations. The use cases the admin
 * routes call; they stamp the time, tell the network from the address, and turn a missing destination into its
 * error code.
 */
export class ReferenceData {
  constructor(
    private readonly store: StoredReferenceData,
    private readonly clock: () => Date,
  ) {}

  listLocations(scope: Scope): Promise<LocationDocument[]> {
    return this.store.listLocations(scope);
  }

  createLocation(scope: Scope, name: string): Promise<LocationDocument> {
    return this.store.createLocation(scope, name, this.clock());
  }

  /** The one destination an order names (its id or address), whatever its state: one read, not the whole list. */
  findDestination(scope: Scope, idOrAddress: string): Promise<PaymentDestinationDocument | null> {
    return this.store.findDestination(scope, idOrAddress);
  }

  listDestinations(scope: Scope): Promise<PaymentDestinationDocument[]> {
    return this.store.listDestinations(scope);
  }

  /** A new destination; its network follows from the address's form (EVM 0x…, else Solana base58). */
  createDestination(
    scope: Scope,
    input: { address: string; status: DestinationStatus; verified: boolean },
  ): Promise<PaymentDestinationDocument> {
    const network = input.address.startsWith('0x') ? 'evm' : 'solana';
    return this.store.createDestination(scope, { ...input, network }, this.clock());
  }

  async updateDestination(
    scope: Scope,
    id: string,
    patch: { status?: DestinationStatus; verified?: boolean },
  ): Promise<PaymentDestinationDocument> {
    const updated = await this.store.updateDestination(scope, id, patch, this.clock());
    if (!updated) throw new DomainError('ADMIN_NOT_FOUND', `No payment destination ${id}.`);
    return updated;
  }
}
