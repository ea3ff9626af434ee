/**
 * The park's toy services (seed 004 Phases G–I) as pure functions of the request: weather that
 * cools over turns, a PA speaker that speaks on some turns, a phone inbox with spam on a known
 * turn, send-text, a drinking fountain. The vending machine's stock is the one piece of state.
 */

export type ToyReply = { status: number; body: unknown };

const bad = (message: string): ToyReply => ({ status: 400, body: { error: message } });

function turnOf(req: Record<string, unknown>): number | null {
  const t = req.turn;
  return typeof t === 'number' && Number.isInteger(t) && t >= 1 ? t : null;
}

const WEATHER = [
  { temperature_f: 72, condition: 'sunny', message: 'Warm and sunny.' },
  { temperature_f: 64, condition: 'windy', message: 'A cold front is arriving.' },
  { temperature_f: 55, condition: 'cold', message: 'The cold front has settled over the park.' },
];

export function weather(req: Record<string, unknown>): ToyReply {
  const turn = turnOf(req);
  if (turn === null) return bad('turn must be an integer >= 1');
  return { status: 200, body: WEATHER[Math.min(turn, WEATHER.length) - 1] };
}

const ANNOUNCEMENTS: Record<number, string[]> = {
  2: ['Attention park visitors: the east vending area is closed for maintenance.'],
  5: ['The park closes at sunset. Please gather your belongings.'],
};

export function announcement(req: Record<string, unknown>): ToyReply {
  const turn = turnOf(req);
  if (turn === null) return bad('turn must be an integer >= 1');
  return { status: 200, body: { announcements: ANNOUNCEMENTS[turn] ?? [] } };
}

const INBOX: Record<number, Array<{ from: string; body: string; kind: string }>> = {
  2: [{ from: 'Unknown', body: 'Limited time offer: free candy coupons!', kind: 'spam' }],
  4: [{ from: 'Alice', body: 'Are you still at the park? I can bring water.', kind: 'inbound' }],
};

export function inbox(req: Record<string, unknown>): ToyReply {
  const turn = turnOf(req);
  if (turn === null) return bad('turn must be an integer >= 1');
  return { status: 200, body: { messages: INBOX[turn] ?? [] } };
}

export function sendText(req: Record<string, unknown>): ToyReply {
  if (typeof req.to !== 'string' || typeof req.body !== 'string') return bad('to and body must be strings');
  const turn = turnOf(req) ?? 0;
  return { status: 200, body: { status: 'sent', to: req.to, message_id: `msg-t${turn}-${req.to}` } };
}

export function drinkingFountain(req: Record<string, unknown>): ToyReply {
  const turn = turnOf(req);
  if (turn === null) return bad('turn must be an integer >= 1');
  const message = turn >= 3 ? 'The water is icy cold in this weather.' : 'Cool water arcs from the fountain.';
  return { status: 200, body: { status: 'dispensed', message } };
}

/** A vending machine per `machine_id`: dispenses while stock lasts, then answers `empty`. */
export function vendingMachines(initialStock: number): (req: Record<string, unknown>) => ToyReply {
  const stock = new Map<string, number>();
  return (req) => {
    if (typeof req.machine_id !== 'string') return bad('machine_id must be a string');
    const left = stock.get(req.machine_id) ?? initialStock;
    if (left <= 0)
      return { status: 200, body: { status: 'empty', remaining: 0, message: 'No candy bars remain.' } };
    stock.set(req.machine_id, left - 1);
    return {
      status: 200,
      body: { status: 'dispensed', remaining: left - 1, message: 'A candy bar was dispensed.' },
    };
  };
}
