// Type-checked (tsc --noEmit --strict) inside the consumer project: the declarations must let a
// TypeScript user write this without casts.
import { init, loadLanguage, words, diagnose, fit, scan, targets, rules, markdown, version, Bundle, type Lang, type Diagnosis, type LayerError, type Layer, type Outlook, type TargetEntry, type ScanOptions } from 'kubectl-layer';

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
  // The timeline: the moments the bundle proves, each with its layer and object. Optional in
  // the type, as in the schema: a Diagnosis written before the timeline has none.
  const moments: string[] = (d.timeline?.moments ?? []).map((m) => `${m.time} ${m.layer} ${m.object.kind}/${m.object.name}: ${m.text}${m.count ? ` ×${m.count}` : ''}`);
  const earlier: number = d.timeline?.earlier ?? 0;
  const rule: string | null | undefined = d.verdict.rule;
  console.log(moments, earlier, rule);
  // `diagnoses` is always there without `{ summary: true }`, and never typed with it.
  const summary = scan(bundle, { summary: true });
  console.log(scan(bundle).diagnoses.length, summary.groups.length, targets(bundle)[0]?.value, rules()[0]?.documentation);
  const asked: ScanOptions = { summary: Math.random() > 2 };
  console.log(scan(bundle, asked).diagnoses?.length);
  const b: Bundle = Bundle.parse(bundle, { now: '2026-11-20T10:00:00Z' });
  const first: TargetEntry | undefined = b.targets()[0];
  const again: Diagnosis = b.why(first?.value ?? null);
  const md: string = b.markdown(first ? { kind: first.kind, namespace: first.namespace ?? undefined, name: first.name } : undefined);
  console.log(again.verdict.state, md, b.text(), b.scan().diagnoses.length, b.object({ kind: 'Pod', name: 'x' }));
  b.free();
  const lang: Lang = 'ko';
  await loadLanguage(lang);
  const ko: Diagnosis = diagnose(bundle, null, { lang });
  const koWords: Record<string, string> = words(lang);
  console.log(ko.verdict.headlineKo, koWords['layer.placement'], rules({ lang })[0]?.summary);
  const both = Bundle.parse(bundle, { lang: 'en' });
  both.setLanguage('ko');
  console.log(both.diagnose().lang);
  both.free();
  const fitted: Diagnosis[] = fit(bundle, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'train' } }, { namespace: 'ml' });
  const outlook: Outlook | null | undefined = fitted[0]?.verdict.outlook;
  console.log(outlook === 'never' ? 'refused' : outlook === 'waiting' ? 'waits' : 'runs');
  try {
    diagnose('not a bundle');
  } catch (e) {
    console.log((e as LayerError).code);
  }
}

void main('{}');
