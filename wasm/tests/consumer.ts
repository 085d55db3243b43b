// Type-checked (tsc --noEmit --strict) inside the consumer project: the declarations must let a
// TypeScript user write this without casts.
import { init, diagnose, scan, targets, rules, markdown, version, type Diagnosis, type LayerError, type Layer } from 'kubectl-layer';

async function main(bundle: string): Promise<void> {
  await init();
  const d: Diagnosis = diagnose(bundle, { kind: 'pod', namespace: 'ml', name: 'trainer-0' }, { now: '2026-11-20T10:00:00Z' });
  const layer: Layer | null | undefined = d.verdict.layer;
  const blocked: string[] = d.layers.filter((l) => l.state === 'blocked').map((l) => l.layer);
  for (const f of d.findings) {
    const where: string = f.evidence.map((e) => `${e.object.kind} ${e.path ?? e.fact ?? ''}`).join(', ');
    console.log(f.rule, f.severity, where);
  }
  console.log(layer, blocked, d.verdict.misalignment?.saidYes, markdown(d), version());
  console.log(scan(bundle).diagnoses.length, targets(bundle)[0]?.value, rules()[0]?.documentation);
  try {
    diagnose('not a bundle');
  } catch (e) {
    console.log((e as LayerError).code);
  }
}

void main('{}');
