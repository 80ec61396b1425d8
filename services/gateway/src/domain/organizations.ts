import { randomBytes } from 'node:crypto';
import { DomainError } from '@checkout/errors';
import type { CheckoutBrand, Mode, Scope } from '@checkout/contracts';
import type { ApiKeyDocument, OrganizationDocument } from '../store/organization.document';
import type { StoredOrganizations } from './ports';
import { generateApiKey } from './api-keys';
import {
  defaultCheckoutSettings,
  patchCheckoutSettings,
  signingSecrets,
  type CheckoutSettings,
  type CheckoutSettingsPatch,
} from './checkout-settings';

/** A key as authentication reads it: the key with this lookup id (null if none) and its organization. */
export interface KeyWithOrganization {
  key: ApiKeyDocument | null;
  organization: OrganizationDocument | null;
}

/** What the dispatcher is told of an organization's settings when it signs a delivery (D35). */
export interface DispatcherCheckoutSettings extends Omit<
  CheckoutSettings,
  'previousWebhookSigningSecret' | keyof CheckoutBrand
> {
  organizationName: string;
  /**
   * Every secret deliveries are signed with now. `webhookSigningSecret` stays beside it for dispatchers that read
   * only it (a rolling deploy).
   */
  webhookSigningSecrets: string[];
}

/**
 * Organizations, their API keys and checkout settings (D5, D26, D35, D38): the use cases of the admin API, of
 * authentication and of the internal API the dispatcher reads. They stamp the time, make ids and secrets, and turn
 * a missing organization or key into the admin API's error code.
 */
export class Organizations {
  constructor(
    private readonly store: StoredOrganizations,
    private readonly clock: () => Date,
  ) {}

  createOrganization(name: string): Promise<OrganizationDocument> {
    return this.store.createOrganization({
      _id: `org_${randomBytes(12).toString('hex')}`,
      name,
      createdAt: this.clock(),
    });
  }

  listOrganizations(): Promise<OrganizationDocument[]> {
    return this.store.listOrganizations();
  }

  /** The organization an admin route names, or ADMIN_NOT_FOUND. */
  async organization(id: string): Promise<OrganizationDocument> {
    const organization = await this.store.getOrganization(id);
    if (!organization) throw new DomainError('ADMIN_NOT_FOUND', `No organization ${id}.`);
    return organization;
  }

  /** A new key; its secret is returned here only, the one time it leaves the service (D5). */
  async createKey(organizationId: string, mode: Mode): Promise<{ key: ApiKeyDocument; secret: string }> {
    const generated = generateApiKey(mode);
    const key: ApiKeyDocument = {
      _id: generated.lookupId,
      keyId: `key_${randomBytes(12).toString('hex')}`,
      hash: generated.hash,
      last4: generated.last4,
      organizationId,
      mode,
      status: 'active',
      createdAt: this.clock(),
    };
    await this.store.insertKey(key);
    return { key, secret: generated.secret };
  }

  listKeys(organizationId: string): Promise<ApiKeyDocument[]> {
    return this.store.listKeys(organizationId);
  }

  /** The key, revoked (again: revoking is idempotent), or ADMIN_NOT_FOUND. */
  async revokeKey(organizationId: string, keyId: string): Promise<ApiKeyDocument> {
    const revoked = await this.store.revokeKey(organizationId, keyId, this.clock());
    if (!revoked) throw new DomainError('ADMIN_NOT_FOUND', `No key ${keyId}.`);
    return revoked;
  }

  /** D5: the key with this lookup id and its organization, as authentication checks them. */
  async keyWithOrganization(lookupId: string): Promise<KeyWithOrganization> {
    const key = await this.store.findKeyByLookupId(lookupId);
    return { key, organization: key ? await this.store.getOrganization(key.organizationId) : null };
  }

  /** The stored settings, or D26's defaults for a mode never configured. */
  async checkoutSettings(organizationId: string, mode: Mode): Promise<CheckoutSettings> {
    return (await this.store.getCheckoutSettings(organizationId, mode)) ?? defaultCheckoutSettings(mode);
  }

  /** Applies a patch, an operator's or a merchant's (D35: a rotation keeps the replaced secret signing a while). */
  async updateCheckoutSettings(
    organizationId: string,
    mode: Mode,
    patch: CheckoutSettingsPatch,
  ): Promise<{ settings: CheckoutSettings; newSecret: string | undefined; at: Date }> {
    const current = await this.checkoutSettings(organizationId, mode);
    const now = this.clock();
    const { settings, newSecret } = patchCheckoutSettings(current, patch, now);
    await this.store.putCheckoutSettings(organizationId, mode, settings, now);
    return { settings, newSecret, at: now };
  }

  /** The dispatcher's answer at delivery time (D35): the organization's name and the secrets that sign now. */
  async dispatcherCheckoutSettings(scope: Scope): Promise<DispatcherCheckoutSettings> {
    const [organization, settings] = await Promise.all([
      this.store.getOrganization(scope.organizationId),
      this.checkoutSettings(scope.organizationId, scope.mode),
    ]);
    return {
      organizationName: organization?.name ?? '',
      defaultCallbackUrl: settings.defaultCallbackUrl,
      enabledPaymentMethods: settings.enabledPaymentMethods,
      webhookSigningSecret: settings.webhookSigningSecret,
      webhookSigningSecrets: signingSecrets(settings, this.clock()),
    };
  }
}
