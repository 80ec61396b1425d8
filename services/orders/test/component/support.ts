import { request } from 'undici';

/** Calls the orders service's internal API as another service would: the internal token and scope headers. */
export function internalCaller(baseUrl: () => string, headers: Record<string, string>) {
  return async (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) => {
    const response = await request(`${baseUrl()}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  };
}
