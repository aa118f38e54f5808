// Bundles the console page (src/console/ui/) into dist/console/ with esbuild (issue #15): one
// script, one stylesheet (ours and uPlot's), content-hashed names under assets/, and index.html
// written from src/console/ui/index.html with those names filled in. Run by `npm run build`.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';

const out = 'dist/console';
await rm(`${out}/assets`, { recursive: true, force: true });
await mkdir(`${out}/assets`, { recursive: true });
const result = await build({
  entryPoints: { console: 'src/console/ui/main.ts' },
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  target: ['es2022'],
  outdir: `${out}/assets`,
  entryNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'linked',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
const pick = (ext) => {
  const name = outputs.find((file) => file.startsWith('console-') && file.endsWith(ext));
  if (!name) throw new Error(`build-console: no ${ext} output`);
  return name;
};
const template = await readFile('src/console/ui/index.html', 'utf8');
const html = template.replaceAll('{{js}}', pick('.js')).replaceAll('{{css}}', pick('.css'));
await writeFile(`${out}/index.html`, html);
console.log(`console page: ${out}/index.html, assets/${pick('.js')}, assets/${pick('.css')}`);
