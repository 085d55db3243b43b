// `node lint.mjs <tarball>`: publint and Are the Types Wrong on the packed tarball, the file npm
// would publish. Every message fails, suggestions included (publint's own CLI exits 0 on those).
// attw runs with the esm-only profile: the package ships ES modules only and CommonJS reaches
// it through Node's require(esm) (README, "Node"), which fresh.test.mjs checks for real.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const tarball = process.argv[2];
if (!tarball) {
  console.error('usage: node lint.mjs <tarball>');
  process.exit(2);
}
const bytes = readFileSync(tarball);
const { messages, pkg } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) }, level: 'suggestion', strict: true });
for (const m of messages) console.error(`publint ${m.type}: ${formatMessage(m, pkg, { color: false })}`);
console.error(`publint: ${messages.length} message(s) on ${tarball}`);

const attw = createRequire(import.meta.url).resolve('@arethetypeswrong/cli/package.json').replace(/package\.json$/, 'dist/index.js');
const types = spawnSync(process.execPath, [attw, tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color', '--no-emoji'], { stdio: 'inherit' });
process.exit(messages.length === 0 && types.status === 0 ? 0 : 1);
