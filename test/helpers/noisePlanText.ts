/** A noise plan as `braid pinpoint` writes it (docs/noise.md), for the language server's trigger-point tests; values by hand. */
export function planText(name: string, triggers: unknown[], runs = 212): string {
  return JSON.stringify({
    format: 'braid-noise-plan',
    version: 1,
    name,
    command: ['java', '-cp', 'out', 'shop.Inventory'],
    noise: { kind: 'sleep', ms: 5 },
    points: [{ id: 'shop/Inventory.take()V@5', probability: 1 }],
    triggers,
    origin: { tool: 'braid pinpoint', created: '2026-11-23T18:00:00Z', runs },
  });
}

/** Two trigger points of the fixture workspace's shop/Inventory.java (values by hand). */
export const TAKE_TRIGGER = { rank: 1, id: 'shop/Inventory.take()V@5', file: 'Inventory.java', line: 10, method: 'shop.Inventory.take', failWith: 0.61, failWithout: 0.02, pValue: 3e-9, score: 12.5 };
export const RESTOCK_TRIGGER = { rank: 2, id: 'shop/Inventory.restock(I)V@2', file: 'Inventory.java', line: 16, method: 'shop.Inventory.restock', failWith: 0.4, failWithout: 0.05, pValue: 2e-4, score: 6 };
