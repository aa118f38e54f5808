/** The folder rules of docs/ARCHITECTURE.md hold by lint, not by habit: these run the repo's own
 * ESLint config over snippets placed in each folder. */
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}/${file}` });
  return result!.messages.map((m) => m.message);
}

describe('folder rules', () => {
  const telemetryImports = [
    "import { Counter } from 'prom-client';\nexport const c = Counter;\n",
    "import { trace } from '@opentelemetry/api';\nexport const t = trace;\n",
  ];

  it.each(['src/pipeline/x.ts', 'src/bindings/http/x.ts', 'src/exchange/x.ts', 'src/rescue/x.ts', 'src/gateway-x.ts'])(
    'refuses prom-client and OpenTelemetry imports in %s',
    async (file) => {
      for (const code of telemetryImports) {
        expect(await problems(file, code)).toEqual([expect.stringMatching(/only src\/telemetry\//)]);
      }
    },
  );

  it('allows them inside src/telemetry/', async () => {
    for (const code of telemetryImports) expect(await problems('src/telemetry/x.ts', code)).toEqual([]);
  });

  it('keeps a2a/ and codec/ pure', async () => {
    const code = "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n";
    expect(await problems('src/a2a/x.ts', code)).toEqual([expect.stringMatching(/pure/)]);
    expect(await problems('src/codec/x.ts', code)).toEqual([expect.stringMatching(/pure/)]);
  });
});
