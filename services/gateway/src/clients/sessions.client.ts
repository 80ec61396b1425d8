import { DependencyUnavailableError, isDomainError } from '@checkout/errors';
import { INTERNAL_ROUTES as R, type OrderSnapshot, type Scope } from '@checkout/contracts';
import type { DashboardSessions } from '../domain/dashboard-reads';
import { InternalApi } from './internal-api';

/** The sessions service's internal API, as the gateway calls it; the hosted page passes through it unchanged. */
export class SessionsClient extends InternalApi implements DashboardSessions {
  listSessions(scope: Scope, requestId: string, query: Record<string, string | undefined>) {
    return this.read(R.listSessions, { scope, requestId, query });
  }

  getSession(scope: Scope, requestId: string, sessionId: string) {
    return this.read(R.getSession, { scope, requestId, params: { sessionId } });
  }

  /**
   * D46: the session takes orders' answer (applied only if newer). SESSION_NOT_FOUND: the session was never stored
   * (its create failed after orders made the order), so nothing shows the order. Any other refusal is a 503: the
   * merchant must not be told of a success its next read would contradict.
   */
  async copyOrder(scope: Scope, requestId: string, sessionId: string, snapshot: OrderSnapshot): Promise<void> {
    try {
      await this.call(R.copyOrder, { scope, requestId, params: { sessionId }, body: snapshot });
    } catch (err) {
      if (!isDomainError(err)) throw err;
      if (err.code === 'SESSION_NOT_FOUND') return;
      throw new DependencyUnavailableError(this.service, new Error(`sessions refused an order snapshot: ${err.code}`));
    }
  }
}
