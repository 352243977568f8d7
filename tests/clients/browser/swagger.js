// Swagger UI at /api-docs, in Debian's headless Chromium: Authorize with an application
// password, then "Try it out" on "Create an event" with the document's example body, and
// Execute. Prints the status Swagger UI shows and the created event's ID as one JSON line;
// keeps screenshots. Exits non-zero on any failure.
//
//   node swagger.js <api-docs URL> <login> <application password> <screenshot directory>
const { chromium } = require('playwright-core');
const path = require('path');

const [url, login, password, shots] = process.argv.slice(2);

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.waitForSelector('#operations-default-createEvent', { timeout: 20000 });
    await page.screenshot({ path: path.join(shots, 'api-docs.png') });

    await page.click('.auth-wrapper .authorize');
    const basic = page.locator('.auth-container').filter({ hasText: 'applicationPassword' });
    await basic.locator('input[type=text]').fill(login);
    await basic.locator('input[type=password]').fill(password);
    await basic.locator('button.authorize').click();
    await page.screenshot({ path: path.join(shots, 'api-docs-authorized.png') });
    await page.click('.dialog-ux .close-modal');

    const op = page.locator('#operations-default-createEvent');
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    await op.locator('button.execute').click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 20000 });
    const body = await op.locator('.live-responses-table .response-col_description pre').first().innerText();
    await page.screenshot({ path: path.join(shots, 'api-docs-created.png'), fullPage: false });
    const created = JSON.parse(body);
    console.log(JSON.stringify({
      status: (await status.innerText()).trim(),
      id: created.id,
      title: created.title,
      errors,
    }));
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
