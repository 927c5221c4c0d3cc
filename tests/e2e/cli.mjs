// The `cosim` CLI for the page tests (COSIM_CLI): run a scenario to CSV, encode and decode
// links, and compare what the page plotted with the CLI's columns.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory the page is served from. The CLI runs there, so a module file named
 * relative to the page (a binary module's `source: "fmus/x.fmu"`) is the same file for both.
 */
export const WWW_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'www');

/** Largest difference allowed between the page's numbers and the CLI's, relative to scale. */
export const TOLERANCE = 1e-9;

export function cliPath() {
  const cli = process.env.COSIM_CLI;
  assert.ok(cli && existsSync(cli), `set COSIM_CLI to the built \`cosim\` binary (got ${cli})`);
  return cli;
}

/** `cosim <args>` with optional standard input; returns standard output. */
export function cosim(args, input) {
  return execFileSync(cliPath(), args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

/** What `cosim run` writes to stderr for the scenario object `scenario` (it must fail). */
export function cliFailure(scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-fail-'));
  const file = join(dir, 's.json');
  writeFileSync(file, JSON.stringify(scenario));
  try {
    execFileSync(cliPath(), ['run', file, '--out', join(dir, 'out.csv')], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    return String(e.stderr);
  }
  assert.fail('the CLI run succeeded');
}

/** Runs scenario JSON text with the CLI; returns the CSV text. */
export function runCli(scenarioText) {
  const dir = mkdtempSync(join(tmpdir(), 'cosim-cli-'));
  const scenarioFile = join(dir, 's.json');
  const csvFile = join(dir, 'out.csv');
  writeFileSync(scenarioFile, scenarioText);
  execFileSync(cliPath(), ['run', scenarioFile, '--out', csvFile], { cwd: WWW_DIR, stdio: ['ignore', 'ignore', 'inherit'] });
  return readFileSync(csvFile, 'utf8');
}

/** CSV text -> {header, columns: Map(name -> number[])}. */
export function parseCsv(text) {
  const lines = text.trim().split('\n');
  const header = lines[0].split(',');
  const columns = new Map(header.map((h) => [h, []]));
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    assert.equal(cells.length, header.length, `CSV row has ${cells.length} cells: ${line}`);
    cells.forEach((c, i) => columns.get(header[i]).push(Number(c)));
  }
  return { header, columns };
}

/** Largest |a - b| relative to the column's scale (at least 1). */
export function assertClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} points plotted, CLI has ${expected.length}`);
  const scale = Math.max(1, ...expected.map(Math.abs));
  let worst = 0;
  let at = -1;
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i] - expected[i]);
    if (!(d <= worst)) { worst = d; at = i; }
  }
  assert.ok(worst <= TOLERANCE * scale, `${what}: differs by ${worst} at row ${at} (${actual[at]} vs ${expected[at]})`);
}

/** Every plotted series of the page equals the CLI CSV's column of the same name. */
export function assertPlottedEqualsCsv(plotted, csvText, what) {
  const expected = parseCsv(csvText);
  assert.ok(plotted.length >= 1, `${what}: at least one output is plotted`);
  for (const p of plotted) {
    const name = `${what} ${p.name}`;
    assertClose(p.time, expected.columns.get('time'), `${name} time`);
    assert.ok(expected.columns.has(p.name), `CLI CSV has a column ${p.name}`);
    assertClose(p.cosim, expected.columns.get(p.name), `${name} co-simulation`);
    const refName = `${p.name}:reference`;
    assert.equal(p.reference !== null, expected.columns.has(refName), `${name}: reference plotted iff the CLI has ${refName}`);
    if (p.reference) assertClose(p.reference, expected.columns.get(refName), `${name} reference`);
  }
}
