#!/usr/bin/env node
// Browser check of feeddigest's pages, run by .ci/run.
//
// It builds the real program, runs `feeddigest demo` offline into a
// temporary folder, opens the generated pages (file://) in Debian's headless
// Chromium through playwright-core, and for each page, in the light and the
// dark colour scheme:
//   - runs axe-core (axe.run(document)) with the <details> closed and again
//     with them open, and fails on ANY violation;
//   - fails on any <script> element in the page;
//   - fails on any request to a URL that is not file:, data:, about: or
//     loopback (recorded with page.on('request'); such requests are aborted);
//   - fails when the page scrolls sideways on a 360 px wide phone screen;
//   - fails when a table, or its wrapper, scrolls sideways inside its box,
//     or has a cell past the screen's edge, at 1200 px and at 360 px (every
//     column of status.html in sight on a laptop and on a phone);
//   - saves a full-page screenshot to ci-artifacts/screenshots/.
//
// Usage: node e2e/browsercheck/check.js [--site DIR] [--out DIR]
//   --site DIR  check an existing site folder instead of building and
//               running the demo
//   --out DIR   screenshot folder (default: <repo>/ci-artifacts/screenshots)
// Environment: CHROMIUM (default /usr/bin/chromium), GO (default: go on PATH).
//
// scenario.js, the screenshots for review, uses the helpers this file
// exports.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');
const axeSource = require('axe-core').source;

const repo = path.resolve(__dirname, '..', '..');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const schemes = ['light', 'dark'];

// parseOptions reads --NAME DIR arguments into opts, whose keys are the
// names it knows (each a folder, made absolute); anything else ends the
// process with usage.
function parseOptions(argv, opts, usage) {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const name = a.startsWith('--') ? a.slice(2) : '';
    if (Object.hasOwn(opts, name) && i + 1 < argv.length) {
      opts[name] = path.resolve(argv[++i]);
    } else {
      console.error(`usage: ${usage} (unknown argument ${a})`);
      process.exit(2);
    }
  }
  return opts;
}

function run(cmd, args, options) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`);
}

// buildProgram builds the Go package pkg of the module (a path from its
// root, '.' for feeddigest itself) into tmp and returns the executable.
function buildProgram(tmp, pkg, name) {
  const bin = path.join(tmp, name);
  const env = { ...process.env, CGO_ENABLED: '0' };
  run(process.env.GO || 'go', ['build', '-o', bin, pkg], { cwd: repo, env });
  return bin;
}

// buildDemo builds feeddigest and runs its offline demo; it returns the
// generated site folder.
function buildDemo(tmp) {
  const bin = buildProgram(tmp, '.', 'feeddigest');
  const out = path.join(tmp, 'demo');
  run(bin, ['demo', '-out', out], { cwd: tmp });
  return path.join(out, 'site');
}

// pagesOf lists the HTML pages of a site folder, relative to it, sorted.
function pagesOf(site) {
  const found = [];
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.html')) found.push(path.relative(site, p));
    }
  })(site);
  return found.sort();
}

// The pages the brief names must be there: a digest page, an index page
// and the status page.
function requirePages(pages) {
  const want = [/^[a-z0-9-]+\/\d{4}-\d{2}-\d{2}\.html$/, /^[a-z0-9-]+\/index\.html$/, /^status\.html$/];
  for (const re of want) {
    if (!pages.some((p) => re.test(p))) throw new Error(`the site has no page matching ${re}`);
  }
}

function allowedURL(u) {
  let url;
  try {
    url = new URL(u);
  } catch {
    return false;
  }
  if (['file:', 'data:', 'about:'].includes(url.protocol)) return true;
  if (url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ws:') {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  }
  return false;
}

function describeViolation(v) {
  const lines = [`  ${v.id} (${v.impact}): ${v.help}`, `    ${v.helpUrl}`];
  for (const n of v.nodes) {
    lines.push(`    at ${n.target.join(' ')}`);
    if (n.failureSummary) lines.push(`       ${n.failureSummary.replace(/\n/g, '\n       ')}`);
  }
  return lines.join('\n');
}

async function axeRun(page) {
  // evaluate, not addScriptTag: the check must not itself add a <script>.
  const hasAxe = await page.evaluate(() => typeof window.axe !== 'undefined');
  if (!hasAxe) await page.evaluate(axeSource);
  return page.evaluate(() => window.axe.run(document, { resultTypes: ['violations', 'incomplete'] }));
}

// tableProblems finds tables whose columns are not all in sight: a table,
// or the box around it, that scrolls sideways inside itself (its
// scrollWidth above its clientWidth), or a cell with text past the right
// edge of the screen.
async function tableProblems(page) {
  return page.evaluate(() => {
    const found = [];
    const screen = document.documentElement.clientWidth;
    document.querySelectorAll('table').forEach((table, i) => {
      const name = table.caption ? `table "${table.caption.textContent.trim().slice(0, 40)}"` : `table ${i + 1}`;
      for (const [box, what] of [[table, 'scrolls sideways'], [table.parentElement, 'scrolls sideways in its wrapper']]) {
        if (box && box.scrollWidth > box.clientWidth) {
          found.push(`${name} ${what}: ${box.scrollWidth}px of columns in a ${box.clientWidth}px box`);
        }
      }
      const beyond = [...table.querySelectorAll('th, td')]
        .filter((c) => c.textContent.trim() !== '' && c.getBoundingClientRect().right > screen + 0.5);
      if (beyond.length > 0) found.push(`${name}: ${beyond.length} cell(s) past the right edge of the ${screen}px screen`);
    });
    return found;
  });
}

// scriptsAndScheme finds any <script> in the page, and checks that the
// colour scheme asked for took effect.
async function scriptsAndScheme(page, where, scheme, problems) {
  const scripts = await page.locator('script').count();
  if (scripts > 0) problems.push(`${where}: ${scripts} <script> element(s)`);
  const matches = await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches);
  if (matches !== (scheme === 'dark')) problems.push(`${where}: colour scheme emulation did not take effect`);
}

// axeClosedAndOpen runs axe on the page as loaded, then with every
// <details> open; it leaves them open.
async function axeClosedAndOpen(page, where, problems) {
  for (const state of ['closed', 'open']) {
    if (state === 'open') {
      const n = await page.evaluate(() => {
        const ds = document.querySelectorAll('details');
        ds.forEach((d) => { d.open = true; });
        return ds.length;
      });
      if (n === 0) continue;
    }
    const res = await axeRun(page);
    for (const v of res.violations) problems.push(`${where} (details ${state}): axe violation\n${describeViolation(v)}`);
    for (const v of res.incomplete) {
      console.log(`  note ${where} (details ${state}): axe needs review: ${v.id} (${v.nodes.length} nodes): ${v.help}`);
    }
    console.log(`  ${where} details ${state}: ${res.violations.length} violations, ${res.passes ? res.passes.length : '-'} passes`);
  }
}

async function checkPage(context, site, rel, out, problems) {
  const url = pathToFileURL(path.join(site, rel)).href;
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`${rel}: page error: ${e.message}`));
  const shotBase = rel.replace(/\.html$/, '').replace(/[\\/]/g, '_');
  try {
    for (const scheme of schemes) {
      const where = `${rel} [${scheme}]`;
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(url, { waitUntil: 'load' });

      await scriptsAndScheme(page, where, scheme, problems);

      const shot = path.join(out, `${shotBase}.${scheme}.png`);
      await page.screenshot({ path: shot, fullPage: true });

      await axeClosedAndOpen(page, where, problems);

      // Every column of every table in sight on a 1200 px screen.
      await page.setViewportSize({ width: 1200, height: 800 });
      await page.goto(url, { waitUntil: 'load' });
      for (const p of await tableProblems(page)) problems.push(`${where} at 1200px: ${p}`);

      // Readable on a phone: nothing makes the whole page scroll sideways,
      // and no table hides columns in a box that scrolls.
      await page.goto(url, { waitUntil: 'load' });
      await page.setViewportSize({ width: 360, height: 740 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow}px on a 360px wide screen`);
      for (const p of await tableProblems(page)) problems.push(`${where} at 360px: ${p}`);
    }
  } finally {
    await page.close();
  }
  const outside = [...new Set(requests.filter((u) => !allowedURL(u)))];
  for (const u of outside) problems.push(`${rel}: request to a non-local URL: ${u}`);
  console.log(`checked ${rel}: ${requests.length} requests, ${outside.length} non-local`);
}

// launch starts Chromium with a fresh, empty profile in tmp, for this
// run only. Nothing leaves the machine: a non-local request is recorded
// by the page's on('request') and aborted here.
async function launch(tmp) {
  const profile = path.join(tmp, 'chromium-profile');
  fs.mkdirSync(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
  });
  await context.route('**/*', (route) => (allowedURL(route.request().url()) ? route.continue() : route.abort('blockedbyclient')));
  for (const p of context.pages()) await p.close();
  return context;
}

async function main() {
  const opts = parseOptions(process.argv.slice(2), { site: '', out: path.join(repo, 'ci-artifacts', 'screenshots') },
    'node check.js [--site DIR] [--out DIR]');
  if (!fs.existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing (apt-get install chromium)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feeddigest-browsercheck-'));
  let context;
  try {
    const site = opts.site || buildDemo(tmp);
    const pages = pagesOf(site);
    requirePages(pages);
    // Its own screenshots only: scenario.js writes to a folder inside.
    fs.mkdirSync(opts.out, { recursive: true });
    for (const e of fs.readdirSync(opts.out, { withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith('.png')) fs.rmSync(path.join(opts.out, e.name));
    }

    context = await launch(tmp);

    console.log(`browser check: ${pages.length} pages of ${site} in ${chromiumPath} (${context.browser() ? context.browser().version() : 'persistent context'})`);
    const problems = [];
    for (const rel of pages) await checkPage(context, site, rel, opts.out, problems);

    console.log(`screenshots: ${opts.out}`);
    if (problems.length > 0) {
      console.error(`\nbrowser check FAILED: ${problems.length} problem(s)`);
      for (const p of problems) console.error(`- ${p}`);
      process.exitCode = 1;
    } else {
      console.log(`browser check passed: ${pages.length} pages x ${schemes.length} colour schemes, no axe violations, no scripts, no non-local requests`);
    }
  } finally {
    if (context) await context.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// scenario.js checks the review scenario's pages with the same helpers.
module.exports = {
  repo, chromiumPath, schemes, parseOptions, run, buildProgram, launch, allowedURL, scriptsAndScheme, axeClosedAndOpen, tableProblems,
};

if (require.main === module) {
  main().catch((e) => {
    console.error(`browser check error: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  });
}
