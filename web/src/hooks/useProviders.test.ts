import { modelLabelFor, type ProvidersInfo } from './useProviders';

const info: ProvidersInfo = {
  providers: [
    { id: 'openai', name: 'OpenAI', model: 'gpt-4o-mini', isDefault: true },
    { id: 'anthropic', name: 'Anthropic', model: 'claude-sonnet-4-5', isDefault: false },
  ],
  defaultProvider: null,
  systemDefault: 'openai',
};

describe('modelLabelFor', () => {
  it('names the chat\'s own provider first', () => {
    expect(modelLabelFor('anthropic', info)).toBe('Anthropic · claude-sonnet-4-5');
    expect(modelLabelFor('openai_compatible', info)).toBe('OpenAI · gpt-4o-mini');
  });

  it('then the person\'s default, then the system\'s', () => {
    expect(modelLabelFor(null, { ...info, defaultProvider: 'anthropic' })).toBe('Anthropic · claude-sonnet-4-5');
    expect(modelLabelFor(null, info)).toBe('OpenAI · gpt-4o-mini');
  });

  it('is null without providers, or for a chat naming one that is not enabled', () => {
    expect(modelLabelFor(null, { providers: [], defaultProvider: null, systemDefault: null })).toBeNull();
    expect(modelLabelFor(null, undefined)).toBeNull();
    expect(modelLabelFor('azure', info)).toBeNull();
  });
});
