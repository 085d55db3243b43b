// Timing harness used by `cargo xtask bench`: the same work as core/examples/bench_scenarios.rs
// (parse, index, diagnose, serialize; best of ROUNDS) through the npm package in Node.
// Usage: node bench.mjs SCENARIOS_DIR ROUNDS   (run where `kubectl-layer` resolves)
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { diagnose } from 'kubectl-layer';

const [dir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 20);
for (const name of readdirSync(dir).filter((d) => existsSync(join(dir, d, 'expected.json'))).sort()) {
  const scen = join(dir, name);
  const bundlePath = ['bundle.json', 'bundle.yaml'].map((f) => join(scen, f)).find(existsSync);
  const text = readFileSync(bundlePath, 'utf8');
  for (const e of JSON.parse(readFileSync(join(scen, 'expected.json'), 'utf8'))) {
    let best = Infinity;
    for (let i = 0; i < rounds; i++) {
      const t0 = process.hrtime.bigint();
      // diagnose returns a parsed object; the native side serializes, this side parses: both
      // end with the diagnosis in the caller's hands.
      diagnose(text, e.target);
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1000);
    }
    console.log(JSON.stringify({ scenario: name, target: e.target, bytes: Buffer.byteLength(text), micros: best }));
  }
}
