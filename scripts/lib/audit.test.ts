import { describe, expect, it } from 'vitest';
import { judgeAudit, type Allowlist } from './audit';

// npm audit of production dependencies, with a documented allow-list; the report shapes are npm 11's.

const report = (vulnerabilities: Record<string, unknown>) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: {} });
const finding = {
  name: 'undici',
  severity: 'high',
  via: [
    {
      source: 1104501,
      name: 'undici',
      title: 'Use of Insufficiently Random Values',
      url: 'https://github.com/advisories/GHSA-c76h-2ccp-4975',
      severity: 'high',
    },
  ],
};
const allow = (until: string): Allowlist => ({
  allowed: [
    {
      advisory: 'GHSA-c76h-2ccp-4975',
      package: 'undici',
      reason: 'only the multipart form-data boundary, which we never send',
      until,
    },
  ],
});

describe('judgeAudit', () => {
  it('When a production dependency has an advisory nobody allowed, then it is a finding', () => {
    expect(judgeAudit(report({ undici: finding }), { allowed: [] }, '2026-11-24')).toMatchObject({
      kind: 'vulnerable',
      findings: [expect.stringContaining('GHSA-c76h-2ccp-4975')],
    });
  });

  it('When the allow-list covers it until a later date, then it passes and is still printed', () => {
    expect(judgeAudit(report({ undici: finding }), allow('2027-01-31'), '2026-11-24')).toMatchObject({
      kind: 'clean',
      allowed: [expect.stringContaining('allowed until 2027-01-31')],
    });
  });

  it('When the allowance has run out, then it is a finding again', () => {
    expect(judgeAudit(report({ undici: finding }), allow('2026-11-01'), '2026-11-24')).toMatchObject({
      kind: 'vulnerable',
      findings: [expect.stringContaining('ended 2026-11-01')],
    });
  });

  it('When the registry has no advisory endpoint (405, as here), then nothing was checked and it says so', () => {
    // What npm 11 prints when the registry answers the bulk advisory request with 405 (recorded here).
    const unreachable = JSON.stringify({
      message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
      method: 'POST',
      statusCode: 405,
      body: '',
      error: { summary: 'audit endpoint returned an error', detail: '' },
    });
    expect(judgeAudit(unreachable, { allowed: [] }, '2026-11-24')).toEqual({
      kind: 'unavailable',
      reason: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
    });
    expect(judgeAudit('', { allowed: [] }, '2026-11-24').kind).toBe('unavailable');
  });

  it('When there is nothing to report, then it is clean', () => {
    expect(judgeAudit(report({}), { allowed: [] }, '2026-11-24')).toEqual({ kind: 'clean', allowed: [] });
  });
});
