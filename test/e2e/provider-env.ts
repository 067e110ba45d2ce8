/** Point the OpenAI client at a fake server for one suite, and put the caller's environment back afterwards. */
export function useOpenAiEndpoint(baseURL: () => string): { apply(): void; restore(): void } {
  const saved = { key: process.env.OPENAI_API_KEY, base: process.env.OPENAI_BASE_URL };
  const put = (name: string, value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value));
  return {
    apply() {
      delete process.env.OPENAI_API_KEY;
      process.env.OPENAI_BASE_URL = baseURL();
    },
    restore() {
      put("OPENAI_API_KEY", saved.key);
      put("OPENAI_BASE_URL", saved.base);
    },
  };
}
