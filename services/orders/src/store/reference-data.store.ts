import { scoped, type Collection, type Db, type Scope } from '@checkout/mongo';
import { newId } from '@checkout/contracts';
import { COLLECTIONS } from './indexes';
import type { StoredCustomer } from './order.document';
import type {
  CustomerDocument,
  DestinationStatus,
  LocationDocument,
  PaymentDestinationDocument,
} from './reference-data.document';

/** Customers, locations and payment destinations: the reference data orders point at. */
export class ReferenceDataStore {
  private readonly customers: Collection<CustomerDocument>;
  private readonly locations: Collection<LocationDocument>;
  private readonly destinations: Collection<PaymentDestinationDocument>;

  constructor(db: Db) {
    this.customers = db.collection(COLLECTIONS.customers);
    this.locations = db.collection(COLLECTIONS.locations);
    this.destinations = db.collection(COLLECTIONS.paymentDestinations);
  }

  /** D11: find-or-create by lowercased email; the unique index makes concurrent first uses agree. */
  async findOrCreateCustomer(
    scope: Scope,
    input: { email: string; name?: string; phone?: string },
    now: Date,
  ): Promise<StoredCustomer> {
    const customers = scoped(this.customers, scope);
    const existing = await customers.findOne({ email: input.email });
    if (existing) return snapshot(existing);
    const doc = { _id: newId('cust', scope.mode), email: input.email, ...pick(input), createdAt: now, updatedAt: now };
    const { doc: stored } = await customers.insertOnce(doc, { email: input.email });
    if (!stored)
      throw new Error(`customer ${doc._id}: its insert was refused as a duplicate, yet no customer has its email`);
    return snapshot(stored);
  }

  getLocation(scope: Scope, id: string): Promise<LocationDocument | null> {
    return scoped(this.locations, scope).findOne({ _id: id });
  }

  async createLocation(scope: Scope, name: string, now: Date): Promise<LocationDocument> {
    const doc = { _id: newId('loc', scope.mode), name, createdAt: now };
    await scoped(this.locations, scope).insertOne(doc);
    return { ...doc, ...scope };
  }

  listLocations(scope: Scope): Promise<LocationDocument[]> {
    return scoped(this.locations, scope).find({}).sort({ createdAt: -1 }).limit(500).toArray();
  }

  /** D15: a destination is found by its id or by its address, within this organization and mode. */
  findDestination(scope: Scope, idOrAddress: string): Promise<PaymentDestinationDocument | null> {
    const destinations = scoped(this.destinations, scope);
    return idOrAddress.startsWith('pd_')
      ? destinations.findOne({ _id: idOrAddress })
      : destinations.findOne({ address: idOrAddress });
  }

  async createDestination(
    scope: Scope,
    input: { address: string; network: string; status: DestinationStatus; verified: boolean },
    now: Date,
  ): Promise<PaymentDestinationDocument> {
    const doc = { _id: newId('pd', scope.mode), ...input, createdAt: now, updatedAt: now };
    await scoped(this.destinations, scope).insertOne(doc);
    return { ...doc, ...scope };
  }

  async updateDestination(
    scope: Scope,
    id: string,
    patch: { status?: DestinationStatus; verified?: boolean },
    now: Date,
  ): Promise<PaymentDestinationDocument | null> {
    // One update: only the given fields change, so concurrent patches of different fields never undo each other.
    return scoped(this.destinations, scope).findOneAndUpdate({ _id: id }, { $set: { ...patch, updatedAt: now } });
  }

  listDestinations(scope: Scope): Promise<PaymentDestinationDocument[]> {
    return scoped(this.destinations, scope).find({}).sort({ createdAt: -1 }).limit(500).toArray();
  }
}

function pick(input: { name?: string; phone?: string }): { name?: string; phone?: string } {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.phone !== undefined && { phone: input.phone }),
  };
}

function snapshot(doc: { _id: string; email: string; name?: string; phone?: string }): StoredCustomer {
  return { id: doc._id, email: doc.email, ...pick(doc) };
}
