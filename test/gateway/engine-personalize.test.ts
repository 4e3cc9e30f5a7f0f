import path from 'node:path';
import { gatewayModule } from '../helpers/gateway-modules';

type Personalize = typeof import('../../gateway/src/domain/personalize.js', { with: { 'resolution-mode': 'import' } });

let p: Personalize;
beforeAll(async () => {
  p = (await gatewayModule(path.resolve(__dirname, '../../gateway/dist/domain/personalize.js'))) as Personalize;
});

const ann = {
  firstName: 'Ann',
  lastName: 'Lee',
  email: 'ann@example.com',
  phone: '+14155550100',
  customFields: { Company: 'Acme', plan: 'pro', seats: 12, trial: true, empty: '', none: null },
};
const nobody = { firstName: null, lastName: null, email: null, phone: null, customFields: {} };

describe('personalize', () => {
  test.each([
    ['Hi {{first_name}}!', 'Hi Ann!'],
    ['Hi {{firstName}} {{lastName}}', 'Hi Ann Lee'],
    ['{{full_name}} <{{email}}> {{phone}} {{phone_number}}', 'Ann Lee <ann@example.com> +14155550100 +14155550100'],
    ['Hi {{ first_name }}, {{  last_name|x  }}.', 'Hi Ann, Lee.'],
    ['Hi {{first_name|there}}', 'Hi Ann'],
    [
      '{{custom.plan}} plan for {{custom.company}} ({{custom.seats}} seats, trial {{custom.trial}})',
      'pro plan for Acme (12 seats, trial true)',
    ],
    ['{{{first_name}}}', '{Ann}'],
    ['{{first_name', '{{first_name'],
    ['no fields at all', 'no fields at all'],
  ])('%j → %j', (template, out) => {
    expect(p.personalize(template, ann)).toBe(out);
  });

  test.each([
    ['Hi {{first_name|there}}!', 'Hi there!'],
    ['Hi {{ first_name | there }}!', 'Hi there!'],
    ['Hi {{first_name|my friend | colleague}}', 'Hi my friend | colleague'],
    ['Hi {{first_name}}, welcome', 'Hi, welcome'],
    ['Hi {{first_name}}!', 'Hi!'],
    ['Hi {{first_name}}', 'Hi'],
    ['¡Hola {{first_name}}! ¿Qué tal?', '¡Hola! ¿Qué tal?'],
    ['Hello {{first_name}} and welcome', 'Hello and welcome'],
    ['Hi {{first_name}} {{last_name}}, ok', 'Hi, ok'],
    ['Hi {{first_name}}{{last_name}}, ok', 'Hi, ok'],
    ['{{first_name}} welcome aboard', 'welcome aboard'],
    ['{{first_name}} {{last_name}} welcome', 'welcome'],
    ['Hi {{first_name}}\n{{last_name}} here', 'Hi\nhere'],
    ['Hi {{first_name}}, {{last_name}}.', 'Hi,.'], // only spaces go: the author's punctuation stays
    ['({{first_name}})', '()'],
    ['Hi {{nickname}} {{custom.missing}} {{custom.empty}} {{custom.none}}.', 'Hi.'],
    ['Dear {{first_name|}}, hi', 'Dear, hi'],
  ])('empty fields: %j → %j', (template, out) => {
    expect(p.personalize(template, nobody)).toBe(out);
  });

  test('a value that is only spaces counts as empty', () => {
    expect(p.personalize('Hi {{first_name|there}}', { ...nobody, firstName: '   ' })).toBe('Hi there');
    expect(p.personalize('Hi {{ full_name }}!', { ...nobody, lastName: ' Lee ' })).toBe('Hi Lee!');
  });

  test('nothing in a value is interpreted: no nested templates, no code', () => {
    const contact = { ...nobody, firstName: '{{email}} ${process.exit(1)} <b>', email: 'x@y.z' };
    expect(p.personalize('Hi {{first_name}}', contact)).toBe('Hi {{email}} ${process.exit(1)} <b>');
    expect(p.personalize('{{constructor}}{{__proto__}}{{custom.constructor}}{{custom.__proto__}}x', nobody)).toBe('x');
  });

  test('output is bounded: values at MAX_VALUE_LENGTH, the message at MAX_MESSAGE_LENGTH without splitting a character', () => {
    const long = { ...nobody, firstName: 'a'.repeat(10_000) };
    expect(p.personalize('{{first_name}}', long)).toHaveLength(p.MAX_VALUE_LENGTH);
    const out = p.personalize(`${'😀'.repeat(5000)}`, nobody);
    expect([...out]).toHaveLength(p.MAX_MESSAGE_LENGTH);
    expect(out.endsWith('😀')).toBe(true);
    expect(p.personalize('{{first_name}}'.repeat(20), long).length).toBeLessThanOrEqual(p.MAX_MESSAGE_LENGTH);
  });
});

describe('templateFields and checkTemplate', () => {
  test('the fields a template uses, once each, in order', () => {
    expect(p.templateFields('Hi {{ first_name|there }}, {{custom.plan}} {{first_name}} {{email}} {{}}')).toEqual([
      'first_name',
      'custom.plan',
      'email',
      '',
    ]);
    expect(p.templateFields('plain')).toEqual([]);
  });

  test('known fields pass', () => {
    expect(() =>
      p.checkTemplate(
        '{{first_name}} {{firstName}} {{last_name}} {{lastName}} {{full_name}} {{email}} {{phone}} {{phone_number}} {{custom.Any Key}}',
      ),
    ).not.toThrow();
  });

  test('unknown fields are refused with the list of known ones', () => {
    expect(() => p.checkTemplate('Hi {{frist_name|there}} {{custom.}} {{company}}', 'openingMessage')).toThrow(
      'openingMessage uses unknown fields {{frist_name}}, {{custom.}}, {{company}}; known fields: first_name, last_name, full_name, email, phone, custom.<field>',
    );
    try {
      p.checkTemplate('{{name}}');
    } catch (err) {
      expect(err).toMatchObject({
        status: 400,
        code: 'UNKNOWN_TEMPLATE_FIELD',
        message: expect.stringMatching(/^template uses unknown field \{\{name\}\};/),
      });
    }
    expect(() => p.checkTemplate('{{ }}')).toThrow(/unknown field \{\{\}\}/);
    expect(() => p.checkTemplate('{{constructor}}')).toThrow(/unknown field \{\{constructor\}\}/);
    expect(() => p.checkTemplate('{{toString}} {{hasOwnProperty}}')).toThrow(/unknown fields/);
  });
});
