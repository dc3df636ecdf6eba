// npm test's reporter: a line per test file as it ends (what ran last before a hang is on the screen), then a summary;
// every failure in full (its name, where, the error and its stack), and the names of what was skipped with why. The
// TAP of all 700 tests, 3,000 lines, told nothing a person reads; `DEEPWORK_TEST_REPORTER=tap npm test` still gives it.

import path from 'node:path';

export default async function* summary(source) {
  const started = Date.now();
  const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
  const failures = [];
  const skipped = [];
  const perFile = new Map();
  const fileOf = (data) => (data.file === undefined ? '(no file)' : path.basename(data.file));
  for await (const event of source) {
    const { type, data } = event;
    // A file's own events: its end, and its failure outside any test (it did not load, or a hook threw).
    const whole = data?.nesting === 0 && data.name === data.file && data.file !== undefined;
    if (whole && type === 'test:complete') {
      const mine = tally(perFile, fileOf(data));
      if (data.details?.passed === false && mine.failed === 0) {
        counts.failed++;
        failures.push({ file: fileOf(data), name: '(the file itself)', error: data.details?.error });
        mine.failed++;
      }
      const seconds = ((data.details?.duration_ms ?? 0) / 1000).toFixed(1);
      yield `${mine.failed > 0 ? '✗' : '✓'} ${fileOf(data)}: ${mine.passed} passed${mine.failed > 0 ? `, ${mine.failed} FAILED` : ''} (${seconds} s)\n`;
      continue;
    }
    if (type !== 'test:pass' && type !== 'test:fail') {
      if (type === 'test:stderr' && /^not ok|Error/m.test(data.message ?? '')) yield data.message;
      continue;
    }
    if (whole) continue;
    const file = fileOf(data);
    if (data.details?.type === 'suite') continue;
    const mine = tally(perFile, file);
    if (data.skip !== undefined && data.skip !== false) {
      counts.skipped++;
      skipped.push(`${file}: ${data.name}${typeof data.skip === 'string' ? ` (${data.skip})` : ''}`);
    } else if (data.todo !== undefined && data.todo !== false) {
      counts.todo++;
    } else if (type === 'test:pass') {
      counts.passed++;
      mine.passed++;
    } else {
      counts.failed++;
      mine.failed++;
      failures.push({ file, name: data.name, error: data.details?.error });
    }
  }
  for (const f of failures) yield `\n✗ ${f.file}: ${f.name}\n${describe(f.error)}\n`;
  if (skipped.length > 0) yield `\nSkipped:\n${skipped.map((s) => `  ${s}`).join('\n')}\n`;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  yield `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${counts.todo > 0 ? `, ${counts.todo} to do` : ''}, in ${seconds} s\n`;
}

// A failure's error as node:test gives it (the assertion wrapped in the test's own error), with its stack.
function describe(error) {
  if (error === undefined) return '  (no error given)';
  const cause = error.cause ?? error;
  const text = cause.stack ?? cause.message ?? String(cause);
  const diff =
    cause.actual !== undefined || cause.expected !== undefined
      ? `\n  actual:   ${inspect(cause.actual)}\n  expected: ${inspect(cause.expected)}`
      : '';
  return `${text.replace(/^/gm, '  ')}${diff}`;
}

function inspect(value) {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value, null, 1);
  return text === undefined ? String(value) : text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

function tally(perFile, file) {
  let mine = perFile.get(file);
  if (mine === undefined) {
    mine = { passed: 0, failed: 0 };
    perFile.set(file, mine);
  }
  return mine;
}
