import { describe, expect, it } from 'vitest';
import { whileRetriable } from './kafkajs-accommodations';

const coordinatorLoading = () =>
  Object.assign(new Error("The coordinator is loading and hence can't process requests for this group"), {
    retriable: true,
  });

describe("whileRetriable: an operator tool reading a group's offsets while its coordinator loads", () => {
  it('tries again after a retriable error, and answers what the later attempt read', async () => {
    let attempts = 0;
    const answer = await whileRetriable(async () => {
      attempts += 1;
      if (attempts < 3) throw coordinatorLoading();
      return 'offsets';
    }, Date.now() + 10_000);
    expect(answer).toBe('offsets');
    expect(attempts).toBe(3);
  });

  it('fails at once on an error that is not retriable', async () => {
    let attempts = 0;
    const refused = Object.assign(new Error('Invalid groupId'), { retriable: false });
    await expect(
      whileRetriable(async () => {
        attempts += 1;
        throw refused;
      }, Date.now() + 10_000),
    ).rejects.toBe(refused);
    expect(attempts).toBe(1);
  });

  it('gives up with the last error once the deadline would pass', async () => {
    let attempts = 0;
    await expect(
      whileRetriable(async () => {
        attempts += 1;
        throw coordinatorLoading();
      }, Date.now() + 50),
    ).rejects.toThrow('coordinator is loading');
    expect(attempts).toBe(1);
  });
});
