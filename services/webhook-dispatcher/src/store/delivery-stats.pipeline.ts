import type { Document } from '@checkout/mongo';

/**
 * D47's delivery chart as an aggregation of the deliveries updated since `from` (deliveries.store
 * deliveryStatsSince): per callback host, the attempts since `from`, their successes and a histogram of their
 * durations, the `hosts` hosts with the most attempts.
 */
export function deliveryStatsPipeline(from: Date, hosts: number): Document[] {
  const duration = '$attempts.durationMs';
  const step = {
    $cond: [
      { $lt: [duration, 100] },
      1,
      { $cond: [{ $lt: [duration, 1_000] }, 10, { $cond: [{ $lt: [duration, 10_000] }, 100, 1_000] }] },
    ],
  };
  const succeeded = {
    $cond: [
      {
        $and: [
          { $eq: [{ $ifNull: ['$attempts.error', null] }, null] },
          { $gte: ['$attempts.statusCode', 200] },
          { $lt: ['$attempts.statusCode', 300] },
        ],
      },
      1,
      0,
    ],
  };
  const piece = (input: unknown, separator: string, index: number) => ({
    $arrayElemAt: [{ $split: [input, separator] }, index],
  });
  // scheme://authority/…: the third piece split on '/', then without userinfo, query or fragment (no $regex
  // in the local engine's aggregation: docs/engines.md).
  const host = { $toLower: piece(piece(piece(piece('$_id.url', '/', 2), '@', -1), '?', 0), '#', 0) };
  return [
    {
      $project: {
        _id: 0,
        url: 1,
        attempts: { $filter: { input: '$attempts', as: 'a', cond: { $gte: ['$$a.at', from] } } },
      },
    },
    { $unwind: '$attempts' },
    // By URL first: the host is worked out once per URL and duration, not once per attempt.
    {
      $group: {
        _id: { url: '$url', ms: { $subtract: [duration, { $mod: [duration, step] }] } },
        n: { $sum: 1 },
        ok: { $sum: succeeded },
      },
    },
    { $group: { _id: { host, ms: '$_id.ms' }, n: { $sum: '$n' }, ok: { $sum: '$ok' } } },
    {
      $group: {
        _id: '$_id.host',
        attempts: { $sum: '$n' },
        succeeded: { $sum: '$ok' },
        durations: { $push: { ms: '$_id.ms', n: '$n' } },
      },
    },
    { $sort: { attempts: -1, _id: 1 } },
    { $limit: hosts },
    { $project: { _id: 0, host: '$_id', attempts: 1, succeeded: 1, durations: 1 } },
  ];
}
