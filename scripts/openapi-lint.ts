// npm run openapi:lint: the OpenAPI document through Spectral's OpenAPI rules and the OWASP API Security
// ruleset (scripts/openapi/spectral.yaml, with each exception's reason); one line per finding, exit 1 on any.
import { lintOpenApi } from './lib/openapi-lint';

const findings = await lintOpenApi();
for (const f of findings) console.log(`${f.code}  ${f.path.join('.')}  ${f.message}`);
console.log(
  findings.length === 0
    ? 'openapi:lint: 0 findings (spectral:oas, OWASP API Security; exceptions in scripts/openapi/spectral.yaml)'
    : `openapi:lint: ${findings.length} findings`,
);
process.exit(findings.length === 0 ? 0 : 1);
