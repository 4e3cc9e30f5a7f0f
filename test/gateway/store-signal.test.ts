import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type SignalModule = typeof import('../../gateway/src/store/signal.js', { with: { 'resolution-mode': 'import' } });

// The gateway is ESM: load the compiled module, as the other gateway tests do.
let Signal: SignalModule['Signal'];
beforeAll(async () => {
  ({ Signal } = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/store/signal.js'))) as SignalModule);
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the store signal behind "a job was queued"', () => {
  test('raised many times in one turn, it calls each listener once, on the next turn', async () => {
    const signal = new Signal();
    let calls = 0;
    signal.subscribe(() => (calls += 1));
    for (let i = 0; i < 10; i++) signal.raise();
    expect(calls).toBe(0);
    await nextTurn();
    expect(calls).toBe(1);
    signal.raise();
    await nextTurn();
    expect(calls).toBe(2);
  });

  test('an unsubscribed listener is not called', async () => {
    const signal = new Signal();
    let calls = 0;
    const unsubscribe = signal.subscribe(() => (calls += 1));
    signal.raise();
    unsubscribe();
    await nextTurn();
    expect(calls).toBe(0);
  });

  test('closed while news is on its way, or raised after the close, it calls no one', async () => {
    const signal = new Signal();
    let calls = 0;
    signal.subscribe(() => (calls += 1));
    signal.raise();
    signal.close();
    await nextTurn();
    signal.raise();
    await nextTurn();
    expect(calls).toBe(0);
  });
});
