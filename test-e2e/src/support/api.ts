import { request } from 'undici';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** A merchant's view of the API: one base URL, one secret key. Raw JSON in and out, as a merchant sees it. */
export class Api {
  constructor(
    readonly baseUrl: string,
    readonly key: string | undefined,
  ) {}

  withKey(key: string | undefined): Api {
    return new Api(this.baseUrl, key);
  }

  get<T = any>(path: string, headers: Record<string, string> = {}) {
    return this.send<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.send<T>('POST', path, body, headers);
  }
  patch<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.send<T>('PATCH', path, body, headers);
  }

  async send<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    rawBody?: string,
  ): Promise<ApiResponse<T>> {
    const response = await request(`${this.baseUrl}${path}`, {
      method: method as 'GET',
      headers: {
        ...(this.key !== undefined && { authorization: `Bearer ${this.key}` }),
        ...((body !== undefined || rawBody !== undefined) && { 'content-type': 'application/json' }),
        ...headers,
      },
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.statusCode, headers: response.headers, body: parsed as T };
  }
}
