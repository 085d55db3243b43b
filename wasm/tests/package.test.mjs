// Runs inside a throwaway consumer project that installed the `npm pack` tarball, exactly as a
// user would (`cargo xtask wasm-test` sets it up). Every scenario of tests/scenarios is
// diagnosed through the package and must equal the native CLI's `-o json` output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as layer from 'kubectl-layer';
import { diagnose, scan, targets, rules, markdown, text, version, init } from 'kubectl-layer';

const scenariosDir = process.env.KL_SCENARIOS;
const cli = process.env.KL_CLI;
assert.ok(scenariosDir && cli, 'KL_SCENARIOS and KL_CLI must be set');

const scenarios = readdirSync(scenariosDir)
  .filter((d) => existsSync(join(scenariosDir, d, 'expected.json')))
  .sort()
  .map((d) => {
    const dir = join(scenariosDir, d);
    const bundlePath = ['bundle.json', 'bundle.yaml'].map((f) => join(dir, f)).find(existsSync);
    return { name: d, bundlePath, bundle: readFileSync(bundlePath, 'utf8'), expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
  });

function runCli(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, `${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test('init resolves at once in Node and the API is complete', async () => {
  await init();
  for (const f of ['init', 'diagnose', 'scan', 'targets', 'rules', 'object', 'version', 'markdown', 'text']) {
    assert.equal(typeof layer[f], 'function', f);
  }
  assert.match(version(), /^\d+\.\d+\.\d+/);
});

test('there are scenarios to replay', () => {
  assert.ok(scenarios.length >= 5, `found ${scenarios.length}`);
});

for (const s of scenarios) {
  test(`scenario ${s.name}: diagnose equals the CLI for every target`, () => {
    for (const e of s.expected) {
      const fromPackage = diagnose(s.bundle, e.target);
      const fromCli = runCli(['why', e.target, '-f', s.bundlePath, '-o', 'json']);
      assert.deepStrictEqual(fromPackage, fromCli, `${s.name} ${e.target}`);
      assert.equal(fromPackage.verdict.state, e.verdict.state);
      assert.equal(fromPackage.verdict.layer, e.verdict.layer);
      // The Markdown title is the headline with Markdown's own characters escaped.
      const title = markdown(fromPackage).split('\n')[0];
      assert.ok(title.startsWith('### '), title);
      const unescaped = title.slice(4).replace(/\\(.)/g, '$1')
        .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
      assert.equal(unescaped, fromPackage.verdict.headline);
      assert.ok(text(fromPackage).includes(fromPackage.verdict.headline));
    }
  });

  test(`scenario ${s.name}: scan equals the CLI`, () => {
    assert.deepStrictEqual(scan(s.bundle), runCli(['scan', '-f', s.bundlePath, '-o', 'json']));
  });

  test(`scenario ${s.name}: targets list work first, in the page's value format`, () => {
    const t = targets(s.bundle);
    assert.ok(t.length > 0);
    for (const x of t) assert.equal(x.value, `${x.kind}/${x.namespace ?? ''}/${x.name}`);
    const firstQuiet = t.findIndex((x) => !x.needsAttention);
    if (firstQuiet >= 0) assert.ok(t.slice(firstQuiet).every((x) => !x.needsAttention), 'attention first');
    const auto = diagnose(s.bundle);
    assert.equal(`${auto.target.kind}/${auto.target.namespace ?? ''}/${auto.target.name}`, t[0].value);
  });
}

test('a bundle may be given as an object, and targets as objects', () => {
  const s = scenarios[0];
  const e = s.expected[0];
  const [kind, namespace, name] = e.target.split('/');
  const obj = s.bundlePath.endsWith('.json') ? JSON.parse(s.bundle) : s.bundle;
  assert.deepStrictEqual(diagnose(obj, { kind, namespace, name }), diagnose(s.bundle, e.target));
});

test('several inputs read as one bundle, and object() returns evidence sources', () => {
  const s = scenarios.find((x) => x.bundlePath.endsWith('.json'));
  const items = JSON.parse(s.bundle).items;
  const half = Math.floor(items.length / 2);
  const parts = [{ apiVersion: 'v1', kind: 'List', items: items.slice(0, half) }, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.slice(half) })];
  const e = s.expected[0];
  assert.deepStrictEqual(diagnose(parts, e.target), diagnose(s.bundle, e.target));
  const d = diagnose(s.bundle, e.target);
  const ev = d.findings.flatMap((f) => f.evidence).find((x) => x.path) ?? d.layers.flatMap((l) => l.evidence).find((x) => x.path);
  if (ev) assert.equal(layer.object(s.bundle, ev.object).metadata.name, ev.object.name);
  assert.throws(() => diagnose([s.bundle, '{oops'], e.target), (err) => err.code === 'parse' && /input 2 of 2/.test(err.message));
});

test('rules() matches the CLI and carries documentation', () => {
  const r = rules();
  const fromCli = runCli(['rules', '-o', 'json']);
  assert.deepStrictEqual(r, fromCli);
  for (const x of r) {
    assert.match(x.id, /^(device|admission|grouping|placement|runtime|serving)\/[a-z0-9-]+$/);
    assert.ok(x.summary && x.documentation.startsWith(`# ${x.id}`));
  }
});

test('errors are Errors with the CLI codes and messages', () => {
  const cases = [
    [() => diagnose('{"kind": "List",\n "items": [ }'), 'parse', /line 2/],
    [() => diagnose(scenarios[0].bundle, 'pod/no-such-pod'), 'target-not-found', /not in the bundle/],
    [() => diagnose(scenarios[0].bundle, null, { maxInputBytes: 10 }), 'input-too-large', /--max-input-bytes/],
    [() => diagnose(scenarios[0].bundle, null, { nope: 1 }), 'usage', /options/],
    [() => diagnose(42), 'usage', /bundle/],
  ];
  for (const [fn, code, msg] of cases) {
    assert.throws(fn, (err) => err instanceof Error && err.code === code && msg.test(err.message), code);
  }
  const cliErr = spawnSync(cli, ['why', 'pod/no-such-pod', '-f', scenarios[0].bundlePath], { encoding: 'utf8' });
  let jsMessage = '';
  try { diagnose(scenarios[0].bundle, 'pod/no-such-pod'); } catch (e) { jsMessage = e.message; }
  assert.ok(cliErr.stderr.includes(jsMessage), `CLI says the same: ${cliErr.stderr}`);
});

test('version() is the package.json version', () => {
  const pkg = JSON.parse(readFileSync(new URL(import.meta.resolve('kubectl-layer/package.json')), 'utf8'));
  assert.equal(version(), pkg.version);
  assert.equal(pkg.name, 'kubectl-layer');
  assert.ok(pkg.files.includes('index.d.ts') && pkg.types === './index.d.ts');
});

test('the TypeScript declarations name every export', () => {
  const dts = readFileSync(new URL('./index.d.ts', import.meta.resolve('kubectl-layer/package.json')), 'utf8');
  for (const f of ['init', 'diagnose', 'scan', 'targets', 'rules', 'object', 'version', 'markdown', 'text']) {
    assert.match(dts, new RegExp(`export function ${f}\\(`), f);
  }
  for (const t of ['Diagnosis', 'Verdict', 'LayerReport', 'Finding', 'Evidence', 'ScanReport', 'TargetEntry', 'RuleInfo']) {
    assert.match(dts, new RegExp(`export interface ${t} \\{`), t);
  }
});

test('the tarball ships the wasm module once, for both entry points', () => {
  const root = new URL('.', import.meta.resolve('kubectl-layer/package.json')).pathname;
  const wasm = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.wasm')) wasm.push(join(dir, e.name));
    }
  };
  walk(root);
  assert.equal(wasm.length, 1, `one .wasm file: ${wasm.join(', ')}`);
});

// The README's examples are the first thing a user copies: the Node one must run as printed.
test("the README's Node example runs on a scenario bundle", () => {
  const readme = readFileSync(new URL('./README.md', import.meta.resolve('kubectl-layer/package.json')), 'utf8');
  const node = readme.split('## Node')[1] ?? '';
  const code = node.match(/```js\n([\s\S]*?)```/)?.[1];
  assert.ok(code, 'the README has a Node example');
  writeFileSync('example.mjs', code);
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  const run = spawnSync(process.execPath, ['example.mjs', s.bundlePath], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const d = diagnose(s.bundle);
  assert.ok(run.stdout.includes(d.verdict.headline), run.stdout);
  assert.ok(run.stdout.includes(text(d)), 'prints the CLI text');
});
