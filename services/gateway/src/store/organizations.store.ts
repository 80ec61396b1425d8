import type { Collection, Db } from 'mongodb';
import type { Mode, PaymentMethod } from '@checkout/contracts';
import { PAYMENT_METHODS } from '@checkout/contracts';
import { COLLECTIONS } from './indexes';

export interface OrganizationDocument {
  _id: string;
  name: string;
  createdAt: Date;
}

export interface ApiKeyDocument {
  /** The key's lookup id: every authenticated request finds its key by _id. */
  _id: string;
  /** The id operators see and revoke by. */
  keyId: string;
  hash: string;
  last4: string;
  organizationId: string;
  mode: Mode;
  status: 'active' | 'revoked';
  createdAt: Date;
  revokedAt?: Date;
}

export interface CheckoutSettingsDocument {
  _id: string; // `${organizationId}:${mode}`
  organizationId: string;
  mode: Mode;
  defaultCallbackUrl: string | null;
  enabledPaymentMethods: PaymentMethod[];
  webhookSigningSecret: string | null;
  previousWebhookSigningSecret?: PreviousSigningSecret | null;
  updatedAt: Date;
}

/** The secret a rotation replaced, still signed with until `until` (D35; issue 22). */
export interface PreviousSigningSecret {
  secret: string;
  until: Date;
}

export interface CheckoutSettings {
  defaultCallbackUrl: string | null;
  enabledPaymentMethods: PaymentMethod[];
  webhookSigningSecret: string | null;
  previousWebhookSigningSecret: PreviousSigningSecret | null;
}

/** D26: all three methods enabled by default in test mode; live mode starts with card only. */
export function defaultCheckoutSettings(mode: Mode): CheckoutSettings {
  return { defaultCallbackUrl: null, enabledPaymentMethods: mode === 'test' ? [...PAYMENT_METHODS] : ['card'], webhookSigningSecret: null, previousWebhookSigningSecret: null };
}

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
    await this.organizations.insertOne(doc);
    return doc;
  }

  getOrganization(id: string): Promise<OrganizationDocument | null> {
    return this.organizations.findOne({ _id: id });
  }

  listOrganizations(): Promise<OrganizationDocument[]> {
    return this.organizations.find({}).sort({ createdAt: -1 }).limit(500).toArray();
  }

  async insertKey(doc: ApiKeyDocument): Promise<void> {
    await this.keys.insertOne(doc);
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

  async getCheckoutSettings(organizationId: string, mode: Mode): Promise<CheckoutSettings> {
    const doc = await this.settings.findOne({ _id: `${organizationId}:${mode}` });
    if (!doc) return defaultCheckoutSettings(mode);
    return {
      defaultCallbackUrl: doc.defaultCallbackUrl,
      enabledPaymentMethods: doc.enabledPaymentMethods,
      webhookSigningSecret: doc.webhookSigningSecret,
      previousWebhookSigningSecret: doc.previousWebhookSigningSecret ?? null,
    };
  }

  async putCheckoutSettings(organizationId: string, mode: Mode, settings: CheckoutSettings, now: Date): Promise<CheckoutSettings> {
    const doc: CheckoutSettingsDocument = { _id: `${organizationId}:${mode}`, organizationId, mode, ...settings, updatedAt: now };
    await this.settings.replaceOne({ _id: doc._id }, doc, { upsert: true });
    return settings;
  }
}
