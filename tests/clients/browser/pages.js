// The calendar's pages, as a visitor uses them, in Debian's headless Chromium:
// month → day → event → venue → back, a filter, the password form and the language
// switch, with JavaScript off (no feature needs it); every view at 1280 and 375 px
// wide (screenshots kept); axe-core on every view. Prints one JSON line of what it
// saw; exits non-zero on any failure.
//
//   node pages.js <site URL> <month path> <protected event path> <password> <screenshot directory>
const { chromium } = require('playwright-core');
const path = require('path');

const [site, monthPath, protectedPath, password, shots] = process.argv.slice(2);

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
}

// The visitor's walk through the calendar; returns what each step showed.
async function walk(page) {
  const seen = {};
  await page.goto(site + monthPath);
  await shot(page, 'month');
  seen.month = { title: await page.title(), cells: await page.locator('table.month td').count() };
  // A day that has events, from its number in the grid.
  const day = page.locator('table.month td:has(ul) a.day-number').first();
  await day.click();
  await shot(page, 'day');
  seen.day = { url: page.url(), events: await page.locator('main ul.events li').count() };
  await page.locator('main ul.events li a').first().click();
  await shot(page, 'event');
  seen.event = { url: page.url(), h1: await page.locator('h1').innerText() };
  await page.locator('section.venue p.name a').click();
  await shot(page, 'venue');
  seen.venue = { url: page.url(), h1: await page.locator('h1').innerText() };
  await page.goBack();
  seen.back = { url: page.url() };

  // A filter: the list, narrowed to one category, by the form alone.
  await page.goto(site + '/events/list/');
  const before = await page.locator('main ul.events li').count();
  const options = page.locator('#f-categories option');
  const category = await options.nth(1).getAttribute('value');
  await page.selectOption('#f-categories', category);
  await page.click('form.filters button[type=submit]');
  await shot(page, 'list-filtered');
  seen.filter = {
    url: page.url(),
    before,
    after: await page.locator('main ul.events li').count(),
    feed: await page.locator('a[href*="ical=1"]').count(),
  };

  // The password form.
  await page.goto(site + protectedPath);
  await shot(page, 'password');
  await page.fill('#password', 'not it');
  await page.click('form.password button');
  const refused = await page.locator('.notice').count();
  await page.fill('#password', password);
  await page.click('form.password button');
  await shot(page, 'password-opened');
  seen.password = {
    refused,
    description: await page.locator('.description').innerText(),
  };

  // Another language, from the footer.
  await page.goto(site + monthPath);
  await page.click('footer .languages a[hreflang=fr]');
  await shot(page, 'month-fr');
  seen.language = { url: page.url(), lang: await page.getAttribute('html', 'lang') };
  return seen;
}

// Views a visitor reaches, each at phone width: nothing wider than the screen.
async function narrow(browser, urls) {
  const page = await browser.newPage({ viewport: { width: 375, height: 800 }, javaScriptEnabled: false });
  const overflow = {};
  for (const [name, url] of Object.entries(urls)) {
    await page.goto(url);
    await shot(page, `${name}-375`);
    const width = await page.evaluate('document.documentElement.scrollWidth');
    if (width > 375) overflow[name] = width;
  }
  await page.close();
  return overflow;
}

// axe-core's serious and critical violations on each view. Its script is injected,
// so this context alone sets the pages' Content-Security-Policy aside.
async function accessibility(browser, urls) {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const violations = [];
  for (const [name, url] of Object.entries(urls)) {
    await page.goto(url);
    await page.addScriptTag({ path: require.resolve('axe-core') });
    const result = await page.evaluate(() => window.axe.run(document));
    for (const v of result.violations) {
      if (v.impact === 'serious' || v.impact === 'critical') {
        violations.push({ view: name, id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.html).slice(0, 3) });
      }
    }
  }
  await context.close();
  return violations;
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    // No feature of the pages needs JavaScript: the walk runs without it.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    const seen = await walk(page);
    await context.close();
    const urls = {
      month: site + monthPath,
      day: seen.day.url,
      event: seen.event.url,
      venue: seen.venue.url,
      list: site + '/events/list/',
      filtered: seen.filter.url,
      password: site + protectedPath,
      french: seen.language.url,
    };
    seen.overflow = await narrow(browser, urls);
    seen.violations = await accessibility(browser, urls);
    seen.errors = errors;
    console.log(JSON.stringify(seen));
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
