import { scoped, type Collection, type Db, type Scope, type ScopedDocument } from '@checkout/mongo';
import { COLLECTIONS } from './indexes';

/** The API key a link or session acts for: `keyId` names it, `keyLookupId` finds it in the key cache. */
export interface DashboardPrincipal {
  apiKeyId: string;
  keyLookupId: string;
}

/** D47: a login link; `_id` is the SHA-256 of the token in its URL (the token itself is never stored). */
export interface LoginLinkDocument extends ScopedDocument, DashboardPrincipal {
  _id: string;
  createdAt: Date;
  expiresAt: Date;
  /** Set by the one conditional update that consumes the link. */
  usedAt: Date | null;
}

/** D47: a dashboard browser session; `_id` is the SHA-256 of its cookie's token. */
export interface DashboardSessionDocument extends ScopedDocument, DashboardPrincipal {
  _id: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * The gateway's dashboard collections. Both are found by the hash of a bearer token that is the capability
 * (as the hosted page finds a session by its id), so those two lookups cannot be tenant-scoped: the tenant is
 * taken from the document found, and everything after them is scoped by it. Writes go through scoped().
 */
export class DashboardStore {
  private readonly links: Collection<LoginLinkDocument>;
  private readonly sessions: Collection<DashboardSessionDocument>;

  constructor(db: Db) {
    this.links = db.collection(COLLECTIONS.dashboardLoginLinks);
    this.sessions = db.collection(COLLECTIONS.dashboardSessions);
  }

  async insertLink(scope: Scope, doc: Omit<LoginLinkDocument, 'organizationId' | 'mode'>): Promise<void> {
    await scoped(this.links, scope).insertOne(doc);
  }

  /**
   * Single use (D47): one conditional update marks the link used only if it is unused and not expired, so of
   * any number of concurrent openings (on any replica) exactly one gets the link; the rest get null. NOT
   * tenant-scoped: the token is the capability (see the class comment).
   */
  consumeLinkAcrossTenants(hash: string, now: Date): Promise<LoginLinkDocument | null> {
    return this.links.findOneAndUpdate(
      { _id: hash, usedAt: null, expiresAt: { $gt: now } },
      { $set: { usedAt: now } },
      { returnDocument: 'after' },
    );
  }

  async insertSession(scope: Scope, doc: Omit<DashboardSessionDocument, 'organizationId' | 'mode'>): Promise<void> {
    await scoped(this.sessions, scope).insertOne(doc);
  }

  /** The live session with this cookie's hash; NOT tenant-scoped: the cookie's token is the capability. */
  findSessionAcrossTenants(hash: string, now: Date): Promise<DashboardSessionDocument | null> {
    return this.sessions.findOne({ _id: hash, expiresAt: { $gt: now } });
  }

  /** Logging out ends the session everywhere at once: every replica reads it from here. */
  async deleteSession(scope: Scope, hash: string): Promise<void> {
    await this.sessions.deleteOne(scoped(this.sessions, scope).filter({ _id: hash }));
  }

  /** Reclaims expired links and sessions; reads ignore them already (the local engine applies no TTL index). */
  async deleteExpired(now: Date): Promise<number> {
    const [links, sessions] = await Promise.all([
      this.links.deleteMany({ expiresAt: { $lt: now } }),
      this.sessions.deleteMany({ expiresAt: { $lt: now } }),
    ]);
    return links.deletedCount + sessions.deletedCount;
  }
}
