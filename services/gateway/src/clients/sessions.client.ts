import { DependencyUnavailableError } from '@checkout/errors';
import { SessionListResponse, SessionResponse, type OrderSnapshot, type Scope } from '@checkout/contracts';
import type { DashboardSessions } from '../domain/dashboard-reads';
import { InternalApi } from './internal-api';

/** The sessions service's internal API, as the gateway calls it; the hosted page passes through it unchanged. */
export class SessionsClient extends InternalApi implements DashboardSessions {
  listSessions(scope: Scope, requestId: string, query: Record<string, string | undefined>) {
    return this.read(SessionListResponse, { method: 'GET', path: '/internal/sessions', scope, requestId, query });
  }

  getSession(scope: Scope, requestId: string, id: string) {
    return this.read(SessionResponse, {
      method: 'GET',
      path: `/internal/sessions/${encodeURIComponent(id)}`,
      scope,
      requestId,
    });
  }

  /**
   * D46: the session takes orders' answer (applied only if newer). 404: the session was never stored (its create
   * failed after orders made the order), so nothing shows the order. Anything else is a 503: the merchant must
   * not be told of a success its next read would contradict.
   */
  async copyOrder(scope: Scope, requestId: string, sessionId: string, snapshot: OrderSnapshot): Promise<void> {
    const answer = await this.http.json({
      method: 'PUT',
      path: `/internal/sessions/${encodeURIComponent(sessionId)}/order`,
      scope,
      requestId,
      body: snapshot,
      idempotent: true,
    });
    if (answer.status === 204 || answer.status === 404) return;
    throw new DependencyUnavailableError(
      this.service,
      new Error(`sessions answered ${answer.status} to an order snapshot`),
    );
  }
}
