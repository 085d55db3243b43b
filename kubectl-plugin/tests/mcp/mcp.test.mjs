// `kubectl layer mcp` as an agent meets it: the MCP TypeScript SDK's own client spawns the
// binary over stdio, lists the tools, checks every schema with a JSON Schema 2020-12 validator,
// calls every tool on every scenario and compares `structuredContent` with the CLI's `-o json`
// on the same input. Also: a bad bundle, an unknown target, --offline without a bundle, a live
// call against the in-process API server, and the README's client configuration as written.
//
// Run by `cargo xtask mcp-test` (and `cargo xtask ci`), which sets:
//   KL_CLI        the kubectl-layer binary
//   KL_CLUSTER    the test_cluster example (the in-process API server serving a bundle)
//   KL_SCENARIOS  tests/scenarios
//   KL_README     README.md
//   KL_FITS       tests/fits

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const CLI = need('KL_CLI');
const SCENARIOS = need('KL_SCENARIOS');
const README = need('KL_README');
const CLUSTER = need('KL_CLUSTER');
const FITS = need('KL_FITS');

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this through \`cargo xtask mcp-test\``);
  return v;
}

/** Every scenario: its bundle file, the bundle's text and its targets. */
function scenarios() {
  return readdirSync(SCENARIOS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(SCENARIOS, d.name, 'expected.json')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = join(SCENARIOS, name);
      const file = ['bundle.json', 'bundle.yaml'].map((f) => join(dir, f)).find(existsSync);
      const targets = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')).map((e) => e.target);
      return { name, file, text: readFileSync(file, 'utf8'), targets };
    });
}

/** Every fit case: its manifest and cluster files and their texts. */
function fitCases() {
  return readdirSync(FITS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(FITS, d.name, 'manifest.yaml')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const dir = join(FITS, name);
      const ref = join(dir, 'cluster.ref');
      // A cluster.ref names a bundle relative to the fit cases' directory.
      const cluster = existsSync(ref) ? join(FITS, readFileSync(ref, 'utf8').trim()) : join(dir, 'cluster.yaml');
      const manifest = join(dir, 'manifest.yaml');
      return { name, manifest, cluster, manifestText: readFileSync(manifest, 'utf8'), clusterText: readFileSync(cluster, 'utf8') };
    });
}

/** A 2020-12 validator that knows the integer formats schemars writes (`uint`, `uint64` …). */
function newAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const unsigned = { type: 'number', validate: (n) => Number.isInteger(n) && n >= 0 };
  for (const f of ['uint', 'uint8', 'uint16', 'uint32', 'uint64']) ajv.addFormat(f, unsigned);
  for (const f of ['int', 'int8', 'int16', 'int32', 'int64']) ajv.addFormat(f, { type: 'number', validate: Number.isInteger });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  return ajv;
}

/** The CLI's answer: parsed stdout, exit status and stderr. */
function cli(args, input) {
  const r = spawnSync(CLI, args, { input, encoding: 'utf8', maxBuffer: 1 << 28, env: cleanEnv() });
  let json = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    // Not JSON: a failure, its words on stderr.
  }
  return { json, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function cleanEnv() {
  const env = { ...process.env };
  delete env.KUBECONFIG;
  return env;
}

/** A connected SDK client for `kubectl-layer ARGS`. */
async function connect(command, args) {
  const client = new Client({ name: 'kubectl-layer-mcp-test', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, env: cleanEnv(), stderr: 'pipe' });
  await client.connect(transport);
  return client;
}

/** The text of a tool result's first text content. */
function text(result) {
  return result.content.find((c) => c.type === 'text')?.text ?? '';
}

/** `error[CODE]` of a CLI failure's stderr or a tool error's text. */
function code(s) {
  return /error\[([a-z-]+)\]/.exec(s)?.[1] ?? null;
}

test('the tools, their schemas, and every tool on every scenario against the CLI', async (t) => {
  const client = await connect(CLI, ['mcp', '--offline']);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), ['explain', 'fit', 'rules', 'scan', 'why']);

    await t.test('the tool list says that no tool writes or deletes anything', () => {
      // What an agent host reads before it lets a tool run without asking: every tool only
      // reads, may be repeated, and only the ones that may read the live cluster reach beyond
      // the call's own arguments.
      const live = new Set(['why', 'scan', 'fit']);
      for (const tool of tools) {
        const a = tool.annotations ?? {};
        assert.equal(a.readOnlyHint, true, `${tool.name}: readOnlyHint`);
        assert.equal(a.destructiveHint, false, `${tool.name}: destructiveHint`);
        assert.equal(a.idempotentHint, true, `${tool.name}: idempotentHint`);
        assert.equal(a.openWorldHint, live.has(tool.name), `${tool.name}: openWorldHint`);
        assert.ok(a.title, `${tool.name}: a title`);
      }
    });

    await t.test('every schema is a JSON Schema 2020-12 object schema', () => {
      const ajv = newAjv();
      for (const tool of tools) {
        for (const [which, schema] of [['input', tool.inputSchema], ['output', tool.outputSchema]]) {
          assert.ok(schema, `${tool.name}: no ${which} schema`);
          assert.equal(schema.type, 'object', `${tool.name}: ${which} schema is not an object schema`);
          assert.doesNotThrow(() => ajv.compile(schema), `${tool.name}: ${which} schema does not compile`);
        }
      }
      const why = tools.find((x) => x.name === 'why');
      assert.deepEqual(why.inputSchema.required, ['target']);
      assert.deepEqual(Object.keys(why.inputSchema.properties).sort(), ['bundle', 'lang', 'namespace', 'target']);
      // `lang` takes the languages the core writes, and nothing else.
      const whyInput = newAjv().compile(why.inputSchema);
      assert.ok(whyInput({ target: 'p', lang: 'ko' }) && whyInput({ target: 'p', lang: 'en' }) && whyInput({ target: 'p' }));
      assert.ok(!whyInput({ target: 'p', lang: 'fr' }), 'an unknown language is refused by the schema');
      // The output schema is the contract's: docs/schema/diagnosis.schema.json.
      const contract = JSON.parse(readFileSync(join(dirname(README), 'docs/schema/diagnosis.schema.json'), 'utf8'));
      delete contract.$schema;
      assert.deepEqual(why.outputSchema, contract);
    });

    const all = scenarios();
    assert.ok(all.length >= 30, `only ${all.length} scenarios found in ${SCENARIOS}`);
    const validate = Object.fromEntries(
      tools.map((tool) => {
        return [tool.name, newAjv().compile(tool.outputSchema)];
      }),
    );
    // A rule list answered within the answer bound: the CLI's `full` list whole, or its first
    // `truncated.shown` entries with `truncated.total` the length of the whole.
    const assertPrefix = (answer, full, what) => {
      const shown = answer.truncated ? answer.truncated.shown : full.length;
      if (answer.truncated) {
        assert.equal(answer.truncated.field, 'rules', what);
        assert.equal(answer.truncated.total, full.length, what);
        assert.ok(shown > 0 && shown < full.length, what);
      }
      assert.deepEqual(answer.rules, full.slice(0, shown), what);
    };
    const checked = (name, result) => {
      assert.ok(!result.isError, `${name}: ${text(result)}`);
      assert.ok(validate[name](result.structuredContent), `${name}: ${JSON.stringify(validate[name].errors)}`);
      assert.ok(text(result).length > 0, `${name}: no Markdown`);
      return result.structuredContent;
    };

    await t.test('why: every target of every scenario, as `why -o json`', async () => {
      let n = 0;
      for (const s of all) {
        for (const target of s.targets) {
          const got = checked('why', await client.callTool({ name: 'why', arguments: { target, bundle: s.text } }));
          const want = cli(['why', target, '-f', s.file, '-o', 'json']);
          assert.ok(want.json, `${s.name} ${target}: the CLI printed no JSON: ${want.stderr}`);
          assert.deepEqual(got, want.json, `${s.name} ${target}`);
          n += 1;
        }
      }
      assert.ok(n > all.length, `only ${n} targets`);
    });

    await t.test('scan: every scenario, as `scan -o json`, and one namespace', async () => {
      for (const s of all) {
        // The default answer is the summary: the groups by cause, no per-item diagnoses.
        const summary = checked('scan', await client.callTool({ name: 'scan', arguments: { bundle: s.text } }));
        assert.deepEqual(summary.groups, cli(['scan', '-f', s.file, '-o', 'json', '--summary']).json.groups, s.name);
        assert.ok(!('diagnoses' in summary), `${s.name}: the summary holds no diagnoses`);
        const got = checked('scan', await client.callTool({ name: 'scan', arguments: { bundle: s.text, summary: false } }));
        assert.deepEqual(got, cli(['scan', '-f', s.file, '-o', 'json']).json, s.name);
        const ns = got.diagnoses[0]?.target.namespace;
        if (ns) {
          const one = checked('scan', await client.callTool({ name: 'scan', arguments: { bundle: s.text, namespace: ns, summary: false } }));
          assert.deepEqual(one, cli(['scan', '-n', ns, '-f', s.file, '-o', 'json']).json, `${s.name} -n ${ns}`);
        }
      }
    });

    await t.test('fit: every fit case, as `fit -o json`', async () => {
      const cases = fitCases();
      assert.ok(cases.length >= 12, `only ${cases.length} fit cases found in ${FITS}`);
      for (const f of cases) {
        const got = checked('fit', await client.callTool({ name: 'fit', arguments: { manifest: f.manifestText, bundle: f.clusterText } }));
        const want = cli(['fit', f.manifest, '-f', f.cluster, '-o', 'json']);
        assert.ok(want.json, `${f.name}: the CLI printed no JSON: ${want.stderr}`);
        assert.deepEqual(got.diagnoses, want.json, f.name);
        assert.ok(got.diagnoses.every((d) => d.target.status === 'NotSubmitted'), f.name);
      }
    });

    await t.test('rules and explain: every layer and every rule, as the CLI', async () => {
      // The whole list is larger than one answer carries: what comes is the CLI's list from
      // its start, cut where the bound falls, saying so and how to narrow the call.
      const all = cli(['rules', '-o', 'json']).json;
      const every = checked('rules', await client.callTool({ name: 'rules', arguments: {} }));
      assertPrefix(every, all, 'every rule');
      assert.ok(every.truncated, 'the whole list of rules is larger than one answer');
      assert.match(every.truncated.why, /`layer`/);
      for (const layer of ['device', 'admission', 'grouping', 'placement', 'runtime', 'serving']) {
        const some = checked('rules', await client.callTool({ name: 'rules', arguments: { layer } }));
        assertPrefix(some, cli(['rules', '--layer', layer, '-o', 'json']).json, layer);
        assert.ok(some.rules.length > 0 && some.rules.every((r) => r.layer === layer));
      }
      // Every rule against the CLI's list (`explain -o json` prints the same entry), and a few
      // against `explain` itself, the short spelling too.
      for (const r of all) {
        const one = checked('explain', await client.callTool({ name: 'explain', arguments: { rule: r.id } }));
        assert.deepEqual(one, r, r.id);
      }
      for (const r of [every.rules[0], every.rules.at(-1)]) {
        const short = r.id.split('/').at(-1);
        const one = checked('explain', await client.callTool({ name: 'explain', arguments: { rule: short } }));
        assert.deepEqual(one, cli(['explain', short, '-o', 'json']).json, short);
      }
    });

    await t.test('lang: every tool answers in Korean when asked, as the CLI with --lang ko', async () => {
      const hangul = /[\uac00-\ud7a3]/;
      const s = all.find((x) => x.name === 'kueue-admitted-no-gpu-room');
      const target = s.targets[0];
      const why = await client.callTool({ name: 'why', arguments: { target, bundle: s.text, lang: 'ko' } });
      const got = checked('why', why);
      assert.deepEqual(got, cli(['why', target, '-f', s.file, '-o', 'json', '--lang', 'ko']).json);
      assert.equal(got.lang, 'ko');
      assert.match(got.verdict.headlineKo, hangul);
      assert.doesNotMatch(got.verdict.headline, hangul, 'the headline stays English');
      assert.equal(text(why).trim(), cli(['why', target, '-f', s.file, '-o', 'markdown', '--lang', 'ko']).stdout.trim());
      const scan = checked('scan', await client.callTool({ name: 'scan', arguments: { bundle: s.text, lang: 'ko', summary: false } }));
      assert.deepEqual(scan, cli(['scan', '-f', s.file, '-o', 'json', '--lang', 'ko']).json);
      const rules = checked('rules', await client.callTool({ name: 'rules', arguments: { lang: 'ko' } }));
      assertPrefix(rules, cli(['rules', '-o', 'json', '--lang', 'ko']).json, 'rules in Korean');
      assert.ok(rules.rules.every((r) => hangul.test(r.summary)));
      const one = await client.callTool({ name: 'explain', arguments: { rule: rules.rules[0].id, lang: 'ko' } });
      assert.deepEqual(checked('explain', one), rules.rules[0]);
      assert.match(text(one), /## 메시지/);
      const f = fitCases()[0];
      const fit = checked('fit', await client.callTool({ name: 'fit', arguments: { manifest: f.manifestText, bundle: f.clusterText, lang: 'ko' } }));
      assert.deepEqual(fit.diagnoses, cli(['fit', f.manifest, '-f', f.cluster, '-o', 'json', '--lang', 'ko']).json);
      const bad = await client.callTool({ name: 'why', arguments: { target, bundle: s.text, lang: 'fr' } });
      assert.equal(bad.isError, true);
      assert.equal(code(text(bad)), 'usage');
    });

    await t.test('failures are tool errors with the CLI error codes', async () => {
      const bad = '{"apiVersion": "v1", "kind": "Pod", "metadata": {';
      const r = await client.callTool({ name: 'why', arguments: { target: 'p', bundle: bad } });
      assert.equal(r.isError, true);
      const want = cli(['why', 'p', '-f', '-'], bad);
      assert.equal(want.status, 2);
      assert.equal(code(text(r)), code(want.stderr));
      assert.ok(code(text(r)), `no error code in: ${text(r)}`);

      const s = all.find((x) => x.name === 'kueue-admitted-no-gpu-room');
      const missing = await client.callTool({ name: 'why', arguments: { target: 'job/no-such-job', bundle: s.text } });
      assert.equal(missing.isError, true);
      assert.equal(code(text(missing)), 'target-not-found');
      assert.equal(code(cli(['why', 'job/no-such-job', '-f', s.file]).stderr), 'target-not-found');

      const offline = await client.callTool({ name: 'why', arguments: { target: 'job/trainer' } });
      assert.equal(offline.isError, true);
      assert.equal(code(text(offline)), 'offline');

      const usage = await client.callTool({ name: 'why', arguments: { namespace: 'ml' } });
      assert.equal(usage.isError, true);
      assert.equal(code(text(usage)), 'usage');
      assert.match(text(usage), /target/);

      const noWork = await client.callTool({ name: 'fit', arguments: { manifest: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n', bundle: s.text } });
      assert.equal(noWork.isError, true);
      assert.equal(code(text(noWork)), code(cli(['fit', '-', '-f', s.file], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n').stderr));
      assert.ok(code(text(noWork)), `no error code in: ${text(noWork)}`);

      const rule = await client.callTool({ name: 'explain', arguments: { rule: 'no-such-rule' } });
      assert.equal(rule.isError, true);
      assert.equal(code(text(rule)), 'rule-not-found');
    });
  } finally {
    await client.close();
  }
});

/** The in-process API server serving `bundle`, with a kubeconfig for it. */
async function cluster(bundle) {
  const dir = mkdtempSync(join(tmpdir(), 'kl-mcp-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(CLUSTER, [bundle, kubeconfig], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (status) => reject(new Error(`test_cluster exited (${status})`)));
  });
  assert.match(first, /^ready http/);
  return {
    kubeconfig,
    stop() {
      child.stdin.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('a live call reads the in-process API server, as the CLI does', async () => {
  const s = scenarios().find((x) => x.name === 'kueue-admitted-no-gpu-room');
  const c = await cluster(s.file);
  try {
    // One "now" for both, so that ages agree whatever the clock says between the two reads.
    const now = cli(['why', 'job/trainer', '-n', 'ml', '-f', s.file, '-o', 'json']).json.now.time;
    const client = await connect(CLI, ['mcp', '--kubeconfig', c.kubeconfig, '--now', now]);
    try {
      const r = await client.callTool({ name: 'why', arguments: { target: 'job/trainer', namespace: 'ml' } });
      assert.ok(!r.isError, text(r));
      const want = cli(['why', 'job/trainer', '-n', 'ml', '--kubeconfig', c.kubeconfig, '--now', now, '-o', 'json']);
      assert.ok(want.json, want.stderr);
      assert.deepEqual(r.structuredContent, want.json);
      assert.equal(r.structuredContent.verdict.layer, 'placement');

      const scan = await client.callTool({ name: 'scan', arguments: { summary: false } });
      assert.ok(!scan.isError, text(scan));
      const wantScan = cli(['scan', '-A', '--kubeconfig', c.kubeconfig, '--now', now, '-o', 'json']);
      assert.deepEqual(scan.structuredContent, wantScan.json);

      const job = fitCases().find((x) => x.name === 'job-fits-now');
      const fit = await client.callTool({ name: 'fit', arguments: { manifest: job.manifestText, namespace: 'ml' } });
      assert.ok(!fit.isError, text(fit));
      const wantFit = cli(['fit', job.manifest, '-n', 'ml', '--kubeconfig', c.kubeconfig, '--now', now, '-o', 'json']);
      assert.ok(wantFit.json, wantFit.stderr);
      assert.deepEqual(fit.structuredContent.diagnoses, wantFit.json);
    } finally {
      await client.close();
    }
  } finally {
    c.stop();
  }
});

test("the README's client configuration answers `why` on the built-in example", async () => {
  const readme = readFileSync(README, 'utf8');
  const block = /<!-- mcp-config -->\s*```json\n([\s\S]*?)```/.exec(readme);
  assert.ok(block, 'README.md has no ```json block after <!-- mcp-config -->');
  const server = JSON.parse(block[1]).mcpServers['kubectl-layer'];
  assert.equal(server.command, 'kubectl-layer');
  // As a user would after `cargo install --path kubectl-plugin` in the checkout: the command
  // is the binary we built, `/path/to/kubectl-layer` is the checkout.
  const root = dirname(README);
  const args = server.args.map((a) => a.replace('/path/to/kubectl-layer', root));
  const client = await connect(CLI, args);
  try {
    const r = await client.callTool({ name: 'why', arguments: { target: 'job/trainer', namespace: 'ml' } });
    assert.ok(!r.isError, text(r));
    assert.equal(r.structuredContent.verdict.state, 'blocked');
    assert.equal(r.structuredContent.verdict.layer, 'placement');
    const file = args[args.indexOf('-f') + 1];
    assert.deepEqual(r.structuredContent, cli(['why', 'job/trainer', '-n', 'ml', '-f', file, '-o', 'json']).json);
  } finally {
    await client.close();
  }
});
