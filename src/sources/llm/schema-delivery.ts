/**
 * A result schema as one provider is sent it. A schema inside the strict subset goes as written to
 * every provider. One outside it goes as written where the provider takes any JSON Schema (vLLM,
 * the prompt of Anthropic, `generic`), is converted where the conversion loses nothing the caller
 * does not check again (OpenAI-strict providers, Gemini, grammar-compiling local servers; a root the
 * subset cannot hold is wrapped as `{ "value": … }`), or is
 * refused — naming the JSON pointer, the rule and the provider — before any byte is sent.
 * docs/providers.md has the table.
 */
import type { JsonSchema } from '../../core/schema-registry.ts';
import { fromStrictDelivery, toStrictDelivery } from '../../core/strict-delivery.ts';
import { type StrictViolation, strictSubsetViolations } from '../../core/strict-schema.ts';
import { SourceFailure } from '../failure.ts';
import { PROVIDERS, type ProviderName, type ProviderProfile, providerProfile } from './providers.ts';

export type SchemaPlan =
  /** Sent as written. */
  | { form: 'as_written'; schema: JsonSchema }
  /** Sent converted; a reply is read back (`readBack`) before it is validated against the original. */
  | { form: 'converted'; schema: Record<string, unknown>; readBack: (reply: unknown) => unknown }
  /** Not sent: the provider would refuse it or decode it as something else. */
  | { form: 'refused'; violations: StrictViolation[] };

const plans = new WeakMap<object, Map<ProviderProfile['schemaForm'], SchemaPlan>>();

/** How `schema` reaches `profile`'s provider (computed once per schema object and form). */
export function schemaPlanFor(schema: JsonSchema, profile: ProviderProfile): SchemaPlan {
  if (typeof schema !== 'object' || schema === null) return planOf(schema, profile.schemaForm);
  let byForm = plans.get(schema);
  if (!byForm) {
    byForm = new Map();
    plans.set(schema, byForm);
  }
  let plan = byForm.get(profile.schemaForm);
  if (!plan) {
    plan = planOf(schema, profile.schemaForm);
    byForm.set(profile.schemaForm, plan);
  }
  return plan;
}

function planOf(schema: JsonSchema, form: ProviderProfile['schemaForm']): SchemaPlan {
  if (form === 'as_written' || strictSubsetViolations(schema).length === 0)
    return { form: 'as_written', schema };
  const d = toStrictDelivery(schema, { describeDropped: true });
  if (d.ok)
    return { form: 'converted', schema: d.schema, readBack: (reply) => fromStrictDelivery(reply, schema) };
  // A root the subset cannot hold (an array, a root anyOf, a free-form `{"type": "object"}`) is sent
  // as the one property `value` of an object, and taken out of it again.
  if (!d.violations.every((v) => v.rule === 'root_object'))
    return { form: 'refused', violations: d.violations };
  const wrapper = { type: 'object', required: ['value'], properties: { value: schema } };
  const w = toStrictDelivery(wrapper, { describeDropped: true });
  if (!w.ok) return { form: 'refused', violations: d.violations };
  return {
    form: 'converted',
    schema: w.schema,
    readBack: (reply) => {
      const back = fromStrictDelivery(reply, wrapper);
      return back && typeof back === 'object' && 'value' in back ? (back as { value: unknown }).value : back;
    },
  };
}

/** The refusal of a schema `provider` cannot be sent: its class, the first place and rule, every place in details. */
export function schemaRefusal(provider: ProviderName, violations: StrictViolation[]): SourceFailure {
  const first = violations[0]!;
  return new SourceFailure(
    'response_format_rejected',
    `the result schema cannot be sent to ${provider}: ${first.path || '/'} ${first.message}${violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''}`,
    {
      details: { provider, violations: violations.map((v) => ({ ...v })) },
      hint: 'rewrite that part of the schema within the strict subset (docs/providers.md, "Your own result schemas"), or author the source with "schema_delivery": "prompt_only"',
    },
  );
}

type Env = Readonly<Record<string, string | undefined>>;

export interface EndpointSchemaPlan {
  endpoint: string;
  provider: ProviderName;
  form: SchemaPlan['form'];
  violations?: StrictViolation[];
}

/**
 * How `schema` would reach each endpoint configured in `env` (the default and every named one whose
 * `…_BASE_URL` is set), for checking a schema when it is defined rather than when it is first sent.
 */
export function schemaPlansForEndpoints(schema: JsonSchema, env: Env): EndpointSchemaPlan[] {
  const names = new Set<string>();
  if (env.NOEMA_LLM_BASE_URL) names.add('default');
  for (const key of Object.keys(env)) {
    const m = /^NOEMA_LLM_([A-Z][A-Z0-9_]*)_BASE_URL$/.exec(key);
    if (m && env[key]) names.add(m[1]!.toLowerCase());
  }
  const out: EndpointSchemaPlan[] = [];
  for (const name of names) {
    const prefix = name === 'default' ? 'NOEMA_LLM_' : `NOEMA_LLM_${name.toUpperCase()}_`;
    const raw = env[`${prefix}PROVIDER`] ?? 'generic';
    const provider = (PROVIDERS as readonly string[]).includes(raw) ? (raw as ProviderName) : 'generic';
    const plan = schemaPlanFor(schema, providerProfile(provider));
    out.push({
      endpoint: name,
      provider,
      form: plan.form,
      ...(plan.form === 'refused' ? { violations: plan.violations } : {}),
    });
  }
  return out;
}
