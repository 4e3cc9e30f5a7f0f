import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type Heap = typeof import('../../gateway/src/cli/heap.js', { with: { 'resolution-mode': 'import' } });

let heap: Heap;
beforeAll(async () => {
  heap = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/cli/heap.js'))) as Heap;
});

const MB = 1024 * 1024;

describe('heap growth allowed after a full collection', () => {
  test.each([
    // A small heap grows by 40 MB, up to four times what survived.
    [1 * MB, 300],
    [12 * MB, 300],
    [16 * MB, 250],
    [20 * MB, 200],
    [40 * MB, 100],
    [80 * MB, 50],
    // A large one by 30 % of what survived, however large: resident memory stays within 1.3 times the live data.
    [133 * MB, 30],
    [400 * MB, 30],
    [4096 * MB, 30],
  ])('%d bytes live: %d %%', (live, percent) => {
    expect(heap.growingPercent(live)).toBe(percent);
  });

  test('moves in steps of 10 %, so the flag changes seldom', () => {
    for (let live = MB; live < 200 * MB; live += 3 * MB) expect(heap.growingPercent(live) % 10).toBe(0);
    expect(heap.growingPercent(0)).toBe(300);
  });
});
