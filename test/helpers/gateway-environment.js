const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { TestEnvironment } = require('jest-environment-node');

/** The gateway's build, which every test of the gateway loads. */
const GATEWAY_DIST = path.resolve(__dirname, '../../gateway/dist');
/** The error classes a test file takes from the gateway's realm (below). */
const ERRORS = [
  'Error',
  'AggregateError',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
];

/**
 * jest's Node environment, lending each test file an import of the gateway's build that Node makes itself
 * (test/helpers/gateway-modules.ts): the build is loaded once per jest worker and shared by the files it runs, where
 * jest would load it anew into each file's module registry (about a second of CPU a file), and it runs as Node runs
 * it for users, not through jest's module machinery.
 *
 * What the build keeps in its modules then outlives a file. A file stops the gateways it started, which lets go of
 * their clock; the counts of /metrics start from zero for each file. The build's objects come from this realm, not
 * the test file's, and so do the test file's errors: a test compares the build's other objects by value (toEqual),
 * never by their constructors.
 */
class GatewayEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // One family of errors: an error a test makes is an Error to the gateway's checks, and one the gateway throws is
    // a RangeError to the test's `toThrow(RangeError)`.
    for (const name of ERRORS) this.global[name] = globalThis[name];
    this.global.loadGatewayModule = (file) => {
      const resolved = path.resolve(file);
      if (path.relative(GATEWAY_DIST, resolved).startsWith('..'))
        throw new Error(`${file} is not a module of the gateway's build (${GATEWAY_DIST})`);
      return import(pathToFileURL(resolved).href);
    };
  }

  async setup() {
    await super.setup();
    // Each file counts from zero, as a new process would: a test reads /metrics of its own gateways only.
    const { registry } = await this.global.loadGatewayModule(path.join(GATEWAY_DIST, 'metrics.js'));
    registry.resetMetrics();
  }

  async teardown() {
    const running = this.global.gatewaysRunning?.() ?? 0;
    await super.teardown();
    // Its clock would outlive the file, and the next file's first gateway be refused another.
    if (running > 0)
      throw new Error(
        `${running} in-process gateway(s) still running after the file: stop every gateway a file starts`,
      );
  }
}

module.exports = GatewayEnvironment;
