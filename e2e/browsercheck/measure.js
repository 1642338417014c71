#!/usr/bin/env node
// Measures what a reader scrolls and tabs through: for each page named,
// its full height at 390 and 1280 px wide, and its tab stops (links,
// summaries, controls), in Debian's headless Chromium.
//
// Usage: node e2e/browsercheck/measure.js FILE.html [FILE.html ...]
// Environment: CHROMIUM (default /usr/bin/chromium).
'use strict';

const path = require('path');
const { pathToFileURL } = require('url');
const { chromium } = require('playwright-core');

async function main(files) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (const file of files) {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(path.resolve(file)).href);
      const row = { file };
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 844 });
        row[`height${width}`] = await page.evaluate(() => document.documentElement.scrollHeight);
      }
      row.tabStops = await page.evaluate(() => document.querySelectorAll(
        'a[href], summary, button, input, select, textarea, audio[controls], [tabindex]:not([tabindex="-1"])').length);
      console.log(JSON.stringify(row));
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
