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
