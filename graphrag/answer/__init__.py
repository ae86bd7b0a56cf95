"""Answers from a language model: prompts built from retrieval results, and the model calls."""
