/**
 * A module of the gateway's build (a path under gateway/dist), as Node loads it: once per jest worker, shared by the
 * files the worker runs (test/helpers/gateway-environment.js says why and what it asks of a test). Every test reads
 * the gateway's modules through here, so that a test and the gateways it starts hold the same clock, the same
 * classes and the same module state.
 */
export function gatewayModule(file: string): Promise<any> {
  const load = (globalThis as { loadGatewayModule?: (file: string) => Promise<unknown> }).loadGatewayModule;
  if (!load) throw new Error("The gateway's modules load through jest's test environment (jest.config.js)");
  return load(file);
}
