"""The agent: answers a question in a chat with tools over the semantic model and the data."""
