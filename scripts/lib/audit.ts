// `npm audit --omit=dev` against the documented allow-list (audit-allowlist.json): what the images run must have no
// known vulnerability that nobody has looked at. npm's advisory endpoint is a service of the registry;
// where it cannot be reached (this project's CI reaches only the package downloads: it answers 405), nothing can be
// checked, and the run says so in one line instead of failing every build or pretending to have checked.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const ALLOWLIST_FILE = 'audit-allowlist.json';

/** One advisory accepted on purpose: why it does not apply to us, and until when the decision holds. */
const AllowlistEntry = z.strictObject({
  advisory: z.string().min(1).describe('GHSA id or the advisory URL npm audit prints'),
  package: z.string().min(1),
  reason: z.string().min(20),
  until: z.iso.date(),
});
export const Allowlist = z.strictObject({ allowed: z.array(AllowlistEntry) });
export type Allowlist = z.infer<typeof Allowlist>;

/** What `npm audit --json` reports that matters here: each vulnerable package and its advisories. */
const AuditReport = z.object({
  vulnerabilities: z.record(
    z.string(),
    z.object({
      name: z.string(),
      severity: z.string(),
      via: z.array(
        z.union([
          z.string(),
          z.object({
            url: z.string().optional(),
            source: z.union([z.number(), z.string()]).optional(),
            title: z.string().optional(),
            severity: z.string().optional(),
          }),
        ]),
      ),
    }),
  ),
});

export type AuditVerdict =
  | { kind: 'unavailable'; reason: string }
  | { kind: 'clean'; allowed: string[] }
  | { kind: 'vulnerable'; findings: string[]; allowed: string[] };

/** Judges `npm audit --json` output against the allow-list at `today` (an entry past `until` no longer counts). */
export function judgeAudit(output: string, allowlist: Allowlist, today: string): AuditVerdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return { kind: 'unavailable', reason: 'npm audit printed no JSON report' };
  }
  const failure = parsed as { error?: { summary?: string; code?: string }; message?: string; statusCode?: number };
  if (failure.error) {
    const what = failure.message ?? failure.error.summary ?? 'the advisory endpoint failed';
    return {
      kind: 'unavailable',
      reason: failure.statusCode !== undefined ? what : `${failure.error.code ?? 'error'}: ${what}`,
    };
  }
  const report = AuditReport.safeParse(parsed);
  if (!report.success) return { kind: 'unavailable', reason: 'npm audit printed a report of an unknown shape' };
  const findings: string[] = [];
  const allowed: string[] = [];
  for (const vulnerability of Object.values(report.data.vulnerabilities)) {
    for (const via of vulnerability.via) {
      if (typeof via === 'string') continue; // a dependency of a vulnerable package: reported under its own name
      const advisory = via.url ?? String(via.source ?? '?');
      const entry = allowlist.allowed.find(
        (a) => (advisory === a.advisory || advisory.endsWith(`/${a.advisory}`)) && a.package === vulnerability.name,
      );
      const line =
        `${vulnerability.name} (${via.severity ?? vulnerability.severity}): ${via.title ?? ''} ${advisory}`.trim();
      if (entry && entry.until >= today) allowed.push(`${line} (allowed until ${entry.until}: ${entry.reason})`);
      else findings.push(entry ? `${line} (its allowance ended ${entry.until})` : line);
    }
  }
  return findings.length > 0 ? { kind: 'vulnerable', findings, allowed } : { kind: 'clean', allowed };
}

function npmAudit(cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['audit', '--omit=dev', '--json'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out));
  });
}

/** Runs the audit; resolves with the exit code (1 only for a finding the allow-list does not cover). */
export async function runAudit(
  root: string,
  log: (line: string) => void,
  today = new Date().toISOString().slice(0, 10),
): Promise<number> {
  const allowlist = Allowlist.parse(JSON.parse(readFileSync(join(root, ALLOWLIST_FILE), 'utf8')));
  const verdict = judgeAudit(await npmAudit(root), allowlist, today);
  if (verdict.kind === 'unavailable') {
    log(
      `npm audit --omit=dev: NOT CHECKED, the registry's advisory endpoint cannot be reached from here (${verdict.reason}); see docs/security.md`,
    );
    return 0;
  }
  for (const line of verdict.allowed) log(`npm audit --omit=dev: allowed ${line}`);
  if (verdict.kind === 'clean') {
    log(
      `npm audit --omit=dev: no known vulnerability in production dependencies${verdict.allowed.length > 0 ? ` beyond ${verdict.allowed.length} allowed` : ''}`,
    );
    return 0;
  }
  for (const line of verdict.findings) log(`npm audit --omit=dev: VULNERABLE ${line}`);
  log(
    `npm audit --omit=dev: ${verdict.findings.length} finding(s) not in ${ALLOWLIST_FILE}: upgrade, or allow each with a reason and a date (docs/security.md)`,
  );
  return 1;
}
