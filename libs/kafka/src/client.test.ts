import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createKafka } from './client';
import { kafkajsOf } from './kafkajs';

// kafkajs logs at error every refused answer of a request it (or ensureTopics) then retries. Those are demoted to
// debug, so that a service's errors stay actionable; anything else it logs at error stays an error.

function recordedLevels(): { levels: Array<{ level: number; msg: string }>; error(msg: string, error: string): void } {
  const levels: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void levels.push(JSON.parse(line)) });
  const kafka = createKafka({ brokers: ['127.0.0.1:1'], clientId: 'log-levels', logger });
  return { levels, error: (msg, error) => kafkajsOf(kafka).logger().error(msg, { error }) };
}

describe("kafkajs' errors in our log", () => {
  it('When a refused answer is one kafkajs or ensureTopics retries, then it is logged at debug; another error stays an error', () => {
    const log = recordedLevels();
    log.error('Response Metadata(key: 3, version: 6)', 'This server does not host this topic-partition');
    log.error('Response ListOffsets(key: 2, version: 2)', 'This server is not the leader for that topic-partition');
    log.error('Response CreateTopics(key: 19, version: 3)', 'Topic creation errors');
    log.error(
      'Response Produce(key: 0, version: 7)',
      'The request included a message larger than the max message size',
    );
    expect(log.levels.map((l) => [l.msg.split('(')[0], l.level])).toEqual([
      ['Response Metadata', 20],
      ['Response ListOffsets', 20],
      ['Response CreateTopics', 20],
      ['Response Produce', 50],
    ]);
  });
});
