#!/usr/bin/env node
// Screenshots for review, run by .ci/run after check.js.
//
// It builds feeddigest and the review scenario (e2e/browsercheck/scenario:
// twelve real-looking feeds and a quiet one on loopback, five simulated
// days, eight users), runs the scenario, and opens the pages its
// scenario.json names (a busy day, and the same in French, German,
// Japanese and Russian, a first digest, a weekly digest, a weekly user's
// first, a weekly digest with nothing new, a right-to-left digest in
// Arabic, status.html) and the emails' HTML parts it decoded from the
// outbox (the busy day's) from file:// in Debian's headless Chromium. For
// each page and email, at 1280 and 390 px wide, in the light and the dark
// colour scheme, it:
//   - saves a full-page screenshot to
//     ci-artifacts/screenshots/scenario/<name>-<width>-<scheme>.png;
//   - runs axe-core with the <details> closed and again open, and fails on
//     ANY violation;
//   - fails on any <script> element, on any request to a URL that is not
//     file:, data:, about: or loopback, on a page that scrolls sideways, and
//     on a table that hides columns (as check.js does for the demo);
//   - fails when the contents do not work: a link to no section, the last
//     section not brought into view, "Back to the contents" not in view
//     there or not bringing them back, a count broken over two lines or
//     off its title's line.
//
// Usage: node e2e/browsercheck/scenario.js [--scenario DIR] [--out DIR]
//   --scenario DIR  check a scenario folder built before (by
//                   `go run ./e2e/browsercheck/scenario -bin BIN -out DIR`)
//                   instead of building one
//   --out DIR       screenshot folder (default:
//                   <repo>/ci-artifacts/screenshots/scenario)
// Environment: CHROMIUM (default /usr/bin/chromium), GO (default: go on PATH).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');
const check = require('./check.js');

// maxHeight bounds what a reader scrolls through on a phone: the busy
// day's 63 entries were 11,340 px tall at 390 px wide before its compact
// layout (each title a line, excerpts of two lines, the links mentioned
// folded); half that is the bound.
const maxHeight = { 'busy-day': { 390: 5670 } };

const widths = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

// buildScenario builds feeddigest and the scenario, runs it into tmp and
// returns the scenario's folder.
function buildScenario(tmp) {
  const bin = check.buildProgram(tmp, '.', 'feeddigest');
  const scenario = check.buildProgram(tmp, './e2e/browsercheck/scenario', 'build-scenario');
  const out = path.join(tmp, 'scenario');
  check.run(scenario, ['-bin', bin, '-out', out], { cwd: tmp });
  return out;
}

// checkPage checks the page at rel in the folder dir (the site, or the
// scenario's folder for an email), named name.
// contentsProblems finds what keeps a page's contents from working: a
// count broken over two lines or pushed off its title's line; a
// contents link whose section is missing; a section the last link does
// not bring into view; "Back to the contents" that is not in view there
// or does not bring the contents back. Nothing for a page without them.
async function contentsProblems(page) {
  const targets = await page.evaluate(() => [...document.querySelectorAll('nav#contents a[href^="#"]')].map((a) => a.getAttribute('href')));
  if (targets.length === 0) return [];
  const found = [];
  // A count ("2 Beiträge", "50 записей") is one piece on its title's line.
  const broken = await page.evaluate(() => [...document.querySelectorAll('nav#contents li > a + .m')].filter((m) => {
    const a = m.previousElementSibling.getBoundingClientRect();
    return m.getClientRects().length !== 1 || m.getBoundingClientRect().top >= a.bottom;
  }).map((m) => `${m.previousElementSibling.textContent.trim()} ${m.textContent.trim()}`));
  for (const b of broken) found.push(`the contents' count breaks or leaves its title's line: ${b}`);
  for (const t of targets) {
    if ((await page.locator(t).count()) !== 1) found.push(`the contents link ${t} leads to no section`);
  }
  const inView = (sel) => page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return r.top >= -1 && r.top < window.innerHeight;
  }, sel);
  const last = targets[targets.length - 1];
  await page.locator(`nav#contents a[href="${last}"]`).click();
  if (!(await inView(last))) found.push(`the contents link ${last} does not bring its section into view`);
  const back = page.locator('.up a[href="#contents"]');
  if ((await back.count()) !== 1 || !(await back.isVisible())) {
    found.push('no "Back to the contents" in view at the last section');
  } else {
    await back.click();
    if (!(await inView('#contents'))) found.push('"Back to the contents" does not bring the contents into view');
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  return found;
}

async function checkPage(context, dir, name, rel, out, problems) {
  const file = path.join(dir, rel);
  const url = pathToFileURL(file).href;
  const page = await context.newPage();
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`${name}: page error: ${e.message}`));
  try {
    for (const size of widths) {
      for (const scheme of check.schemes) {
        const where = `${name} (${rel}) [${size.width}px ${scheme}]`;
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(url, { waitUntil: 'load' });

        await check.scriptsAndScheme(page, where, scheme, problems);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) problems.push(`${where}: scrolls sideways by ${overflow}px`);
        for (const p of await check.tableProblems(page)) problems.push(`${where}: ${p}`);
        for (const p of await contentsProblems(page)) problems.push(`${where}: ${p}`);

        const shot = path.join(out, `${name}-${size.width}-${scheme}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        console.log(`  ${where}: ${path.relative(check.repo, shot)} (${height}px tall)`);
        const bound = (maxHeight[name] || {})[size.width];
        if (bound && height > bound) problems.push(`${where}: ${height}px tall, over ${bound}px`);

        await check.axeClosedAndOpen(page, where, problems);
      }
    }
  } finally {
    await page.close();
  }
  const outside = [...new Set(requests.filter((u) => !check.allowedURL(u)))];
  for (const u of outside) problems.push(`${name}: request to a non-local URL: ${u}`);
  console.log(`checked ${name} (${rel}, ${Math.round(fs.statSync(file).size / 1024)} KB): ${requests.length} requests, ${outside.length} non-local`);
}

async function main() {
  const opts = check.parseOptions(process.argv.slice(2),
    { scenario: '', out: path.join(check.repo, 'ci-artifacts', 'screenshots', 'scenario') },
    'node scenario.js [--scenario DIR] [--out DIR]');
  if (!fs.existsSync(check.chromiumPath)) throw new Error(`${check.chromiumPath} is missing (apt-get install chromium)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'feeddigest-scenario-'));
  let context;
  try {
    const dir = opts.scenario || buildScenario(tmp);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'scenario.json'), 'utf8'));
    const site = path.join(dir, manifest.site);
    const names = Object.keys(manifest.pages).sort();
    const emails = Object.keys(manifest.emails || {}).sort();
    fs.rmSync(opts.out, { recursive: true, force: true });
    fs.mkdirSync(opts.out, { recursive: true });

    context = await check.launch(tmp);
    console.log(`scenario screenshots: ${names.length} pages of ${site}, ${emails.length} emails`);
    const problems = [];
    for (const name of names) await checkPage(context, site, name, manifest.pages[name], opts.out, problems);
    for (const name of emails) await checkPage(context, dir, name, manifest.emails[name], opts.out, problems);

    console.log(`screenshots: ${opts.out}`);
    if (problems.length > 0) {
      console.error(`\nscenario check FAILED: ${problems.length} problem(s)`);
      for (const p of problems) console.error(`- ${p}`);
      process.exitCode = 1;
    } else {
      console.log(`scenario check passed: ${names.length} pages and ${emails.length} emails x ${widths.length} widths x ${check.schemes.length} colour schemes, no axe violations, no scripts, no non-local requests`);
    }
  } finally {
    if (context) await context.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`scenario check error: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
