// Counts relay runs (bench/relay/run.sh): per question, the steps (bridge calls) and the tokens the model was sent
// (o200k, summed over the question's messages, each counted whole since the bridge remembers nothing), as medians over
// each group's runs.
// Usage: node bench/relay/count.mjs before=DIR,DIR… after=DIR,DIR…
// A question is compared only where both groups have a run that finished it (its exit code in marks.tsv).

import fs from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

const questions = fs
  .readFileSync(new URL('questions.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => l.split('\t')[1] ?? '');

// One run's figures: for each question number, { steps, tokens }, or nothing when the run did not get to it.
function countRun(dir) {
  const marks = fs
    .readFileSync(path.join(dir, 'marks.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t').map(Number));
  const requests = fs.readdirSync(dir).filter((f) => /^req-\d+\.txt$/.test(f)).length;
  const figures = new Map();
  marks.forEach(([q, first], i) => {
    const end = marks[i + 1]?.[1] ?? requests + 1;
    let tokens = 0;
    for (let k = first; k < end; k++) tokens += countTokens(fs.readFileSync(path.join(dir, `req-${k}.txt`), 'utf8'));
    figures.set(q, { steps: end - first, tokens });
  });
  return figures;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const groups = process.argv.slice(2).map((arg) => {
  const [name, dirs] = arg.split('=');
  if (name === undefined || dirs === undefined) throw new Error(`expected name=DIR,DIR…, got ${arg}`);
  return { name, runs: dirs.split(',').map(countRun) };
});
if (groups.length === 0) {
  process.stderr.write('usage: node bench/relay/count.mjs before=DIR,DIR… after=DIR,DIR…\n');
  process.exit(2);
}

const rows = questions.map((question, i) => {
  const q = i + 1;
  const cells = groups.map((g) => {
    const done = g.runs.map((r) => r.get(q)).filter((f) => f !== undefined);
    return done.length === 0
      ? undefined
      : {
          steps: median(done.map((f) => f.steps)),
          tokens: median(done.map((f) => f.tokens)),
          each: done.map((f) => `${f.steps}/${f.tokens}`),
        };
  });
  return { q, question, cells };
});

const names = groups.map((g) => g.name);
console.log(`question | ${names.map((n) => `${n} steps | ${n} tokens`).join(' | ')} | runs (steps/tokens)`);
for (const r of rows) {
  const figures = r.cells.map((c) => (c === undefined ? '– | –' : `${c.steps} | ${c.tokens}`)).join(' | ');
  const each = r.cells.map((c, i) => `${names[i]}: ${c?.each.join(' ') ?? '–'}`).join('; ');
  console.log(`${r.q}. ${r.question.slice(0, 60)} | ${figures} | ${each}`);
}
if (groups.length >= 2) {
  const both = rows.filter((r) => r.cells[0] !== undefined && r.cells[1] !== undefined);
  const sum = (i, key) => both.reduce((s, r) => s + (r.cells[i]?.[key] ?? 0), 0);
  const more = both.filter((r) => (r.cells[1]?.tokens ?? 0) > (r.cells[0]?.tokens ?? 0)).map((r) => r.q);
  console.log(
    `\n${both.length} questions in both: median steps per question ${median(both.map((r) => r.cells[0].steps))} → ${median(both.map((r) => r.cells[1].steps))}; tokens summed over medians ${sum(0, 'tokens')} → ${sum(1, 'tokens')}; ${names[1]} needs more tokens for ${more.length} (${more.join(', ') || 'none'})`,
  );
}
