import { openAiDialect } from "./dialects.js";
import { describeProvider } from "./provider-suite.js";

// A fake OpenAI chat-completions server driven through `keel serve --model openai:…` and the real @langchain/openai client.
describeProvider(openAiDialect);
