import type { Scope } from '@checkout/contracts';
import type { DashboardPrincipal, DashboardSessionDocument, LoginLinkDocument } from '../store/dashboard.store';
import type { StoredDashboardLogins } from './ports';
import { hashToken, newToken } from './dashboard-tokens';

/**
 * D47's login links and dashboard sessions: each a bearer token shown once (a link's URL, a session's cookie) and
 * stored as its hash, with its lifetime. The use cases of the dashboard's login and session checks; the pages
 * find links and sessions by the hash of the token they were given (hashToken).
 */
export class DashboardLogins {
  constructor(
    private readonly store: StoredDashboardLogins,
    private readonly lifetimes: { linkTtlMs: number; sessionTtlMs: number },
    private readonly clock: () => Date,
  ) {}

  /** A new login link for the key that asked (an API request); its token goes in the URL, once. */
  async createLink(scope: Scope, principal: DashboardPrincipal): Promise<{ token: string; expiresAt: Date }> {
    const token = newToken();
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + this.lifetimes.linkTtlMs);
    await this.store.insertLink(scope, {
      _id: hashToken(token),
      ...principal,
      createdAt: now,
      expiresAt,
      usedAt: null,
    });
    return { token, expiresAt };
  }

  /** The link while it may still be used, read without using it (what its page shows before the button). */
  usableLink(hash: string): Promise<LoginLinkDocument | null> {
    return this.store.findUsableLinkAcrossTenants(hash, this.clock());
  }

  /** Uses the link (single use: of concurrent uses, on any replica, exactly one gets it), else null. */
  useLink(hash: string): Promise<LoginLinkDocument | null> {
    return this.store.consumeLinkAcrossTenants(hash, this.clock());
  }

  /** A new session for the key a used link was made for; its token goes in the cookie, once. */
  async startSession(link: LoginLinkDocument): Promise<{ token: string }> {
    const token = newToken();
    const now = this.clock();
    await this.store.insertSession(
      { organizationId: link.organizationId, mode: link.mode },
      {
        _id: hashToken(token),
        apiKeyId: link.apiKeyId,
        keyLookupId: link.keyLookupId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.lifetimes.sessionTtlMs),
      },
    );
    return { token };
  }

  /** The live session whose cookie token has this hash, else null. */
  liveSession(hash: string): Promise<DashboardSessionDocument | null> {
    return this.store.findSessionAcrossTenants(hash, this.clock());
  }

  /** Logging out ends the session on every replica at once. */
  endSession(scope: Scope, hash: string): Promise<void> {
    return this.store.deleteSession(scope, hash);
  }
}
