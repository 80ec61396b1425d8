import { request } from 'undici';

export interface DemoOrganization {
  organizationId: string;
  testKey: string;
  liveKey: string;
}

/** A small client of the operator admin API (D38), used by the CLI, the local stack and tests. */
export class AdminClient {
  constructor(
    private readonly gatewayUrl: string,
    private readonly adminToken: string,
  ) {}

  async call<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const response = await request(`${this.gatewayUrl}/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.adminToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    const parsed = text ? (JSON.parse(text) as unknown) : {};
    if (response.statusCode >= 400) throw new Error(`admin ${method} ${path} → ${response.statusCode}: ${text}`);
    return parsed as T;
  }

  async createOrganization(name: string): Promise<string> {
    const { organization } = await this.call<{ organization: { id: string } }>('POST', '/organizations', { name });
    return organization.id;
  }

  async createKey(organizationId: string, mode: 'test' | 'live'): Promise<{ id: string; secret: string }> {
    const { key } = await this.call<{ key: { id: string; secret: string } }>(
      'POST',
      `/organizations/${organizationId}/keys`,
      { mode },
    );
    return key;
  }

  /** An organization with one test and one live key. */
  async createOrganizationWithKeys(name: string): Promise<DemoOrganization> {
    const organizationId = await this.createOrganization(name);
    const [test, live] = await Promise.all([
      this.createKey(organizationId, 'test'),
      this.createKey(organizationId, 'live'),
    ]);
    return { organizationId, testKey: test.secret, liveKey: live.secret };
  }
}
