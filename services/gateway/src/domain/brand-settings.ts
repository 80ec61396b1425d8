import type { CheckoutBrand, Scope, UpdateCheckoutSettingsRequest } from '@checkout/contracts';
import { brandOf } from './checkout-settings';
import type { Organizations } from './organizations';

/** The merchant's own view of its checkout settings: the hosted page's brand and default locale. */
export interface BrandSettings {
  read(scope: Scope): Promise<CheckoutBrand>;
  update(scope: Scope, patch: UpdateCheckoutSettingsRequest): Promise<CheckoutBrand>;
}

/**
 * Reads the stored settings, never the create path's cache, so a merchant sees its change at once; a change drops
 * this replica's cached copy (the others' lapse within the key cache's lifetime, as after an operator's change).
 */
export function brandSettings(
  organizations: Organizations,
  changed: (organizationId: string, mode: Scope['mode']) => void,
): BrandSettings {
  return {
    read: async (scope) => brandOf(await organizations.checkoutSettings(scope.organizationId, scope.mode)),
    update: async (scope, patch) => {
      const { settings } = await organizations.updateCheckoutSettings(scope.organizationId, scope.mode, patch);
      changed(scope.organizationId, scope.mode);
      return brandOf(settings);
    },
  };
}
