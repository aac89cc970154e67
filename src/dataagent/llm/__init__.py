"""Chat-model and embedding providers, provider resolution, token usage and tracing."""
