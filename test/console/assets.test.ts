import { removeDir, request, startGateway, type TestGateway } from '../helpers/gateway';
import { expectSecurityHeaders } from './support';

/** The console's assets as the build leaves them: served by the gateway itself, one bundle, nothing fetched elsewhere. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(async () => {
  await gw?.stop();
  if (gw) removeDir(gw.dataDir);
});

test('assets are served from the build, with the same headers, revalidated rather than stored', async () => {
  const js = await request(gw, 'GET', '/console/assets/app.js');
  expect(js.status).toBe(200);
  expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
  expect(js.headers['cache-control']).toBe('no-cache');
  expectSecurityHeaders(js.headers);
  // One bundle: nothing imported at run time, from here or elsewhere.
  expect(js.text).not.toMatch(/\bimport\s*[("'{*]/);
  const css = await request(gw, 'GET', '/console/assets/app.css');
  expect(css.status).toBe(200);
  expect(css.headers['content-type']).toMatch(/^text\/css/);
  expect(css.text).not.toMatch(/url\(|@import/);
  const missing = await request(gw, 'GET', '/console/assets/missing.js');
  expect(missing.status).toBe(404);
  expectSecurityHeaders(missing.headers);
});
