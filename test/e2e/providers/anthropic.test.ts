import { anthropicDialect } from "./dialects.js";
import { describeProvider } from "./provider-suite.js";

// A fake Anthropic Messages server driven through `keel serve --model anthropic:…` and the real @langchain/anthropic client.
describeProvider(anthropicDialect);
