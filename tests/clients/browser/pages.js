// The calendar pages as a visitor uses them, in Debian's headless Chromium: month → day →
// event → venue → back, the filter form, the password form, the language switch; axe-core's
// rules on every page at 375 and 1280 pixels wide. Prints what it saw as one JSON line;
// keeps screenshots. Exits non-zero on any failure.
//
//   node pages.js <site URL> <screenshot directory> <password>
const { chromium } = require('playwright-core');
const fs = require('fs');
const path = require('path');

const [site, shots, password] = process.argv.slice(2);
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// axe's serious and critical violations on the page, and whether it scrolls sideways.
async function audit(page, name, seen) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  // The pages' CSP forbids inline script; the audit bypasses it (see newPage below).
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => await window.axe.run());
  for (const v of result.violations) {
    if (v.impact === 'serious' || v.impact === 'critical') {
      seen.violations.push(`${name}: ${v.id} (${v.nodes.length})`);
    }
  }
  const wide = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
  if (wide) seen.overflow.push(name);
}

async function visit(browser, width, seen) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, bypassCSP: true });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  const at = (name) => `${name}-${width}`;

  await page.goto(`${site}/events/month/2027-03/`);
  await audit(page, at('month'), seen);
  await page.click('a.day-number:has(time[datetime="2027-03-10"])');
  seen.day = new URL(page.url()).pathname;
  await audit(page, at('day'), seen);
  await page.click('text=Jazz Night');
  seen.event = await page.locator('h1').innerText();
  await audit(page, at('event'), seen);
  await page.click('section.venue p.name a');
  seen.venue = await page.locator('h1').innerText();
  await audit(page, at('venue'), seen);
  await page.goBack();
  seen.back = new URL(page.url()).pathname;

  await page.goto(`${site}/events/`);
  await page.selectOption('#f-category', 'music');
  await Promise.all([page.waitForNavigation(), page.click('form.filters button[type=submit]')]);
  seen.filtered = new URL(page.url()).search;
  seen.filteredTitles = await page.locator('ul.events li > a').allInnerTexts();
  await audit(page, at('filtered'), seen);

  await page.goto(`${site}/event/members-meeting/`);
  await audit(page, at('password'), seen);
  await page.fill('#password', password);
  await Promise.all([page.waitForNavigation(), page.click('form.password button[type=submit]')]);
  seen.unlocked = await page.locator('.description').innerText();

  await page.goto(`${site}/events/`);
  await page.click('footer a[hreflang=fr]');
  seen.lang = await page.getAttribute('html', 'lang');
  seen.frenchHeading = await page.locator('h1').innerText();
  await audit(page, at('french'), seen);
  await page.close();
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const seen = { violations: [], overflow: [], errors: [], widths: {} };
  try {
    for (const width of [375, 1280]) {
      const one = { violations: seen.violations, overflow: seen.overflow, errors: seen.errors };
      await visit(browser, width, one);
      delete one.violations; delete one.overflow; delete one.errors;
      seen.widths[width] = one;
    }
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(seen));
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
