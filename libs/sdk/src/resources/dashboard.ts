import type { LoginLinkResponse } from '@checkout/contracts';
import type { HttpClient } from '../http';

/** D47: the merchant dashboard. */
export class Dashboard {
  readonly loginLinks: { create(): Promise<LoginLinkResponse> };

  constructor(http: HttpClient) {
    this.loginLinks = {
      /** A single-use link, valid 5 minutes, that opens a dashboard session for this key's organization and mode. */
      create: () => http.request<LoginLinkResponse>('POST', '/v0/dashboard/login_links'),
    };
  }
}
