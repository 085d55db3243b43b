// The packed package as users meet it: `cargo xtask wasm-test` installs the tarball into a fresh
// project (KL_CONSUMER) and runs this with the tools pinned in this folder. The package is used
// from ES modules, from CommonJS, from TypeScript (node16, nodenext and bundler resolution) and
// through a Vite build opened in Debian's Chromium; every verdict is checked against the
// scenario's expected.json.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';

const here = new URL('.', import.meta.url).pathname;
const consumer = process.env.KL_CONSUMER;
const scenariosDir = process.env.KL_SCENARIOS;
assert.ok(consumer && scenariosDir, 'KL_CONSUMER and KL_SCENARIOS must be set');
cpSync(join(here, 'consumer'), consumer, { recursive: true });

/** A scenario's bundle file and the expected verdict of its first target. */
function scenario(name) {
  const dir = join(scenariosDir, name);
  const bundle = ['bundle.json', 'bundle.yaml'].map((f) => join(dir, f)).find(existsSync);
  const [first] = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8'));
  return { name, bundle, target: first.target, verdict: first.verdict };
}
// Two scenarios whose verdicts differ, so a package that answered one fixed thing would fail.
const cases = [scenario('kueue-waiting-for-quota'), scenario('plc-kai-queues')];
test('the two scenarios disagree on the layer', () => {
  assert.notEqual(cases[0].verdict.layer, cases[1].verdict.layer);
});

function node(args) {
  const r = spawnSync(process.execPath, args, { cwd: consumer, encoding: 'utf8' });
  assert.equal(r.status, 0, `node ${args.join(' ')}: ${r.stderr}`);
  return r;
}

for (const [via, script] of [['import', 'use.mjs'], ['require', 'use.cjs']]) {
  test(`from ${via === 'import' ? 'an ES module' : 'CommonJS'} (${script})`, () => {
    for (const c of cases) {
      const r = node([script, c.bundle, c.target]);
      const got = JSON.parse(r.stdout);
      assert.equal(got.via, via);
      assert.equal(got.state, c.verdict.state, c.name);
      assert.equal(got.layer, c.verdict.layer, c.name);
      // require(esm) is stable on the Node versions the package names: no experimental warning.
      assert.equal(r.stderr, '', `${script} wrote to stderr`);
    }
  });
}

test('require resolves to the Node entry, not the browser one', () => {
  const req = createRequire(join(consumer, 'package.json'));
  assert.match(req.resolve('kubectl-layer'), /[/\\]kubectl-layer[/\\]index\.node\.mjs$/);
});

const tools = createRequire(import.meta.url);
const tsc = join(tools.resolve('typescript/package.json'), '..', 'bin', 'tsc');

/** tsc in the consumer project; `files` are its own, options as a TypeScript user writes them. */
function typecheck(name, compilerOptions, files) {
  const config = `tsconfig.${name}.json`;
  const options = { strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], skipLibCheck: false, ...compilerOptions };
  writeFileSync(join(consumer, config), JSON.stringify({ compilerOptions: options, files }, null, 2));
  return spawnSync(process.execPath, [tsc, '-p', config, '--listFiles'], { cwd: consumer, encoding: 'utf8' });
}

const resolutions = {
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};
// What each setup must say, and nothing more: consumer.ts type-checks everywhere; wrong.ts
// misuses the types and must be refused (so they are in force, not `any`); use.cts (CommonJS
// TypeScript) may require the package under nodenext, while node16, which predates require(esm),
// refuses it and says why, as the README says. (A .cts file means nothing to `bundler`.)
const expectations = {
  node16: { files: ['consumer.ts', 'wrong.ts', 'use.cts'], errors: ['use.cts TS1479', 'wrong.ts TS2322', 'wrong.ts TS2339'] },
  nodenext: { files: ['consumer.ts', 'wrong.ts', 'use.cts'], errors: ['wrong.ts TS2322', 'wrong.ts TS2339'] },
  bundler: { files: ['consumer.ts', 'wrong.ts'], errors: ['wrong.ts TS2322', 'wrong.ts TS2339'] },
};
for (const [name, options] of Object.entries(resolutions)) {
  const { files, errors } = expectations[name];
  test(`TypeScript, moduleResolution ${options.moduleResolution}: the types resolve, a program type-checks, misuse is refused`, () => {
    const r = typecheck(name, options, files);
    assert.match(r.stdout, new RegExp(`node_modules\\${sep}kubectl-layer\\${sep}index\\.d\\.ts`), 'the package declarations were not read');
    const said = [...r.stdout.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    assert.deepEqual(said, errors, r.stdout);
    assert.equal(r.status, 2, 'tsc reports errors with exit status 2');
  });
}

// Opened in the browser under the offline page's Content-Security-Policy: this origin only, and
// WebAssembly (the package README's 'wasm-unsafe-eval').
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; img-src 'self' data:";
const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
let server, context;
after(async () => {
  await context?.close();
  server?.close();
});

test('in a Vite build opened in Chromium: the WASM loads and diagnoses a bundle', async () => {
  const c = cases[1];
  const app = join(consumer, 'app');
  cpSync(c.bundle, join(app, 'bundle.json'));
  writeFileSync(join(app, 'case.json'), JSON.stringify({ target: c.target }));
  const { build } = await import('vite');
  const dist = join(consumer, 'app-dist');
  // The scenario's bundle text is inlined into the app's chunk; Vite's 500 kB chunk warning
  // would be about that, not about the package.
  await build({ root: app, configFile: false, logLevel: 'warn', build: { outDir: dist, emptyOutDir: true, chunkSizeWarningLimit: 8192 } });
  const assets = readdirSync(join(dist, 'assets'));
  assert.equal(assets.filter((f) => f.endsWith('.wasm')).length, 1, `one .wasm among ${assets}`);

  server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(dist, path === '/' ? 'index.html' : `.${path}`);
    const found = file.startsWith(dist) && existsSync(file);
    res.writeHead(found ? 200 : 404, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP });
    res.end(found ? readFileSync(file) : 'not found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = await import('playwright-core');
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'kl-npm-chromium-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const requests = [];
  const errors = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(origin);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
  const data = await page.evaluate(() => ({ ...document.body.dataset }));
  assert.equal(data.error, undefined, `the page failed: ${data.error}`);
  assert.equal(data.state, c.verdict.state);
  assert.equal(data.layer, c.verdict.layer ?? 'none');
  assert.ok(data.headlineKo, 'the Korean texts did not load from the built app');
  assert.deepEqual(errors, []);
  assert.ok(requests.some((u) => u.endsWith('.wasm')), `no .wasm request among ${requests}`);
  assert.deepEqual(requests.filter((u) => !u.startsWith(`${origin}/`)), [], 'a request left the app');
});
