import type { Mode, Scope } from '@checkout/contracts';
import type { DashboardSessionDocument, LoginLinkDocument } from '../store/dashboard.store';
import type { ApiKeyDocument, OrganizationDocument } from '../store/organization.document';
import type { CheckoutSettings } from './checkout-settings';

// The gateway's collections as its use cases need them: interfaces the domain owns, implemented by store/ (wired in
// app.ts). The ports to other services are domain/owners.ts and domain/dashboard-reads.ts.

/** Organizations, their API keys and checkout settings (organizations.store.ts). */
export interface StoredOrganizations {
  createOrganization(doc: OrganizationDocument): Promise<OrganizationDocument>;
  getOrganization(id: string): Promise<OrganizationDocument | null>;
  listOrganizations(): Promise<OrganizationDocument[]>;
  /** The unique keyId arbitrates, as every unique insert does (libs/mongo write-conflicts.ts). */
  insertKey(doc: ApiKeyDocument): Promise<void>;
  findKeyByLookupId(lookupId: string): Promise<ApiKeyDocument | null>;
  listKeys(organizationId: string): Promise<ApiKeyDocument[]>;
  /** Revoking is one-way and idempotent; a plain replace is enough (operators are its only writers). */
  revokeKey(organizationId: string, keyId: string, now: Date): Promise<ApiKeyDocument | null>;
  /** The stored settings, or null for a mode never configured (the domain knows its defaults). */
  getCheckoutSettings(organizationId: string, mode: Mode): Promise<CheckoutSettings | null>;
  putCheckoutSettings(
    organizationId: string,
    mode: Mode,
    settings: CheckoutSettings,
    now: Date,
  ): Promise<CheckoutSettings>;
}

/** The dashboard's login links and sessions (D47; dashboard.store.ts). */
export interface StoredDashboardLogins {
  insertLink(scope: Scope, doc: Omit<LoginLinkDocument, 'organizationId' | 'mode'>): Promise<void>;
  /**
   * The link with this hash while it may still be used (unused, not expired), read without using it: what its
   * page shows before the button is pressed. NOT tenant-scoped: the token is the capability (see the class comment).
   */
  findUsableLinkAcrossTenants(hash: string, now: Date): Promise<LoginLinkDocument | null>;
  /**
   * Single use (D47): one conditional update marks the link used only if it is unused and not expired, so of
   * any number of concurrent openings (on any replica) exactly one gets the link; the rest get null. NOT
   * tenant-scoped: the token is the capability (see the class comment).
   */
  consumeLinkAcrossTenants(hash: string, now: Date): Promise<LoginLinkDocument | null>;
  insertSession(scope: Scope, doc: Omit<DashboardSessionDocument, 'organizationId' | 'mode'>): Promise<void>;
  /** The live session with this cookie's hash; NOT tenant-scoped: the cookie's token is the capability. */
  findSessionAcrossTenants(hash: string, now: Date): Promise<DashboardSessionDocument | null>;
  /** Logging out ends the session everywhere at once: every replica reads it from here. */
  deleteSession(scope: Scope, hash: string): Promise<void>;
}
