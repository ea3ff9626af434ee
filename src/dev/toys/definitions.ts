/** The park's `http_json` source definitions, as seed 004 shows them (with Noema's env names). */

const httpJson = (label: string, urlEnv: string, path: string) => ({
  version: 1 as const,
  label,
  interface: { name: 'http_json', method: 'POST', url_env: urlEnv, path, timeout_ms: 5000 },
});

export const toySources = {
  weather: httpJson('toy_park_weather', 'NOEMA_TOY_WEATHER_URL', '/weather'),
  pa: httpJson('toy_park_pa', 'NOEMA_TOY_PA_URL', '/announcement'),
  phoneInbox: httpJson('toy_phone_inbox', 'NOEMA_TOY_PHONE_URL', '/inbox'),
  sendText: httpJson('dummy_send_text', 'NOEMA_TOY_PHONE_URL', '/send'),
  vending: httpJson('toy_vending_machine', 'NOEMA_TOY_VENDING_URL', '/buy_candy'),
  fountain: httpJson('toy_drinking_fountain', 'NOEMA_TOY_FOUNTAIN_URL', '/use_drinking_fountain'),
};

export const toyResultSchemas = {
  weather: {
    type: 'object',
    required: ['temperature_f', 'condition', 'message'],
    properties: {
      temperature_f: { type: 'number' },
      condition: { type: 'string' },
      message: { type: 'string' },
    },
  },
  pa: {
    type: 'object',
    required: ['announcements'],
    properties: { announcements: { type: 'array', items: { type: 'string' } } },
  },
  phoneInbox: {
    type: 'object',
    required: ['messages'],
    properties: {
      messages: {
        type: 'array',
        items: {
          type: 'object',
          required: ['from', 'body', 'kind'],
          properties: { from: { type: 'string' }, body: { type: 'string' }, kind: { type: 'string' } },
        },
      },
    },
  },
  vending: {
    type: 'object',
    required: ['status', 'remaining', 'message'],
    properties: {
      status: { enum: ['dispensed', 'empty'] },
      remaining: { type: 'integer' },
      message: { type: 'string' },
    },
  },
};
