import type { CheckoutBrand, CheckoutSettingsResponse } from '@checkout/contracts';
import type { HttpClient } from '../http';
import type { CheckoutSettingsUpdateParams } from '../types';

/** The hosted page's brand and default locale for this key's organization and mode. */
export class CheckoutSettings {
  constructor(private readonly http: HttpClient) {}

  async retrieve(): Promise<CheckoutBrand> {
    return (await this.http.request<CheckoutSettingsResponse>('GET', '/v0/checkout_settings')).checkoutSettings;
  }

  /** An absent field stays as it is; null clears it. */
  async update(params: CheckoutSettingsUpdateParams): Promise<CheckoutBrand> {
    const answer = await this.http.request<CheckoutSettingsResponse>('PATCH', '/v0/checkout_settings', {
      body: params,
    });
    return answer.checkoutSettings;
  }
}
