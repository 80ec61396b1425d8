import { overview } from '../../domain/dashboard-reads';
import { deliveryHostsChart, paymentsPerHourChart } from './charts';
import { pageCtx, requestId, respond, scopeOf, twentyFourHoursBefore, type MountSection } from './kit';
import { overviewPage } from './overview.render';

/** The overview (D47): per callback host, the last day's attempts; payments per hour over a week. */
export const mountOverviewPages: MountSection = (pages, deps, session) => {
  pages.get('/', session, async (ctx) => {
    const { deliveries, payments } = await overview(deps.upstreams, scopeOf(ctx), requestId(ctx));
    respond(
      ctx,
      overviewPage(
        pageCtx(ctx, 'overview'),
        { hosts: deliveryHostsChart(deliveries), payments: paymentsPerHourChart(payments) },
        twentyFourHoursBefore(deps.clock()),
      ),
    );
  });
};
