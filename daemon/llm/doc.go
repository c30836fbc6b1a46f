// Package llm holds the language-model providers behind summarize.Model:
// the OpenAI-compatible Chat Completions API (OpenAI, Ollama, llama.cpp
// server, vLLM, LM Studio) and the Anthropic Messages API, plus the
// configuration that chooses between them and the offline extractive
// summarizer.
//
// Constructors do no I/O: no connection is opened until a summary is
// asked for, and none at all when no model is configured. Prompts are
// built and redacted in compaction/summarize; API keys are read from the
// environment variable the configuration names and never appear in errors.
//
// It may import compaction/summarize and the standard library; it must not
// import lsp/, cmd/ or the store.
package llm
