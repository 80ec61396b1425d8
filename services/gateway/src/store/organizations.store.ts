import type { Collection, Db } from '@checkout/mongo';
import type { Mode } from '@checkout/contracts';
import { retryTransientWriteConflicts } from '@checkout/mongo';
import type { CheckoutSettings } from '../domain/checkout-settings';
import { COLLECTIONS } from './indexes';
import type { ApiKeyDocument, CheckoutSettingsDocument, OrganizationDocument } from './organization.document';

/** Organizations, their API keys and checkout settings: the gateway's own collections. */
export class OrganizationsStore {
  private readonly organizations: Collection<OrganizationDocument>;
  private readonly keys: Collection<ApiKeyDocument>;
  private readonly settings: Collection<CheckoutSettingsDocument>;

  constructor(db: Db) {
    this.organizations = db.collection(COLLECTIONS.organizations);
    this.keys = db.collection(COLLECTIONS.apiKeys);
    this.settings = db.collection(COLLECTIONS.checkoutSettings);
  }

  async createOrganization(doc: OrganizationDocument): Promise<OrganizationDocument> {
    await retryTransientWriteConflicts(() => this.organizations.insertOne(doc));
    return doc;
  }

  getOrganization(id: string): Promise<OrganizationDocument | null> {
    return this.organizations.findOne({ _id: id });
  }

  listOrganizations(): Promise<OrganizationDocument[]> {
    return this.organizations.find({}).sort({ createdAt: -1 }).limit(500).toArray();
  }

  /** The unique keyId arbitrates, as every unique insert does (libs/mongo write-conflicts.ts). */
  async insertKey(doc: ApiKeyDocument): Promise<void> {
    await retryTransientWriteConflicts(() => this.keys.insertOne(doc));
  }

  findKeyByLookupId(lookupId: string): Promise<ApiKeyDocument | null> {
    return this.keys.findOne({ _id: lookupId });
  }

  listKeys(organizationId: string): Promise<ApiKeyDocument[]> {
    return this.keys.find({ organizationId }).sort({ createdAt: -1 }).toArray();
  }

  /** Revoking is one-way and idempotent; a plain replace is enough (operators are its only writers). */
  async revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyDocument | null> {
    const key = await this.keys.findOne({ keyId, organizationId });
    if (!key) return null;
    if (key.status === 'revoked') return key;
    const revoked: ApiKeyDocument = { ...key, status: 'revoked', revokedAt: now };
    await this.keys.replaceOne({ _id: key._id }, revoked);
    return revoked;
  }

  /** The stored settings, or null for a mode never configured (the domain knows its defaults). */
  async getCheckoutSettings(organizationId: string, mode: Mode): Promise<CheckoutSettings | null> {
    const doc = await this.settings.findOne({ _id: `${organizationId}:${mode}` });
    if (!doc) return null;
    return {
      defaultCallbackUrl: doc.defaultCallbackUrl,
      enabledPaymentMethods: doc.enabledPaymentMethods,
      webhookSigningSecret: doc.webhookSigningSecret,
      previousWebhookSigningSecret: doc.previousWebhookSigningSecret ?? null,
      displayName: doc.displayName ?? null,
      brandColor: doc.brandColor ?? null,
      logoUrl: doc.logoUrl ?? null,
      defaultLocale: doc.defaultLocale ?? null,
    };
  }

  async putCheckoutSettings(
    organizationId: string,
    mode: Mode,
    settings: CheckoutSettings,
    now: Date,
  ): Promise<CheckoutSettings> {
    const doc: CheckoutSettingsDocument = {
      _id: `${organizationId}:${mode}`,
      organizationId,
      mode,
      ...settings,
      updatedAt: now,
    };
    await this.settings.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return settings;
  }
}
